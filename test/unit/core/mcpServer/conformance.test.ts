import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { node22, runConformance } from '../../../support/mcp-conformance';
import { startMcpHarness, type McpHarness } from '../../../support/mcp-harness';

const ROOT = path.resolve(__dirname, '..', '..', '..', '..');

/** Every scenario the suite runs against a server that is not in the baseline: each must pass on its own checks. */
const PASSING = [
  'server-initialize', 'ping', 'logging-set-level', 'tools-list', 'server-sse-multiple-streams',
  'tools-call-simple-text', 'tools-call-image', 'tools-call-audio', 'tools-call-embedded-resource', 'tools-call-mixed-content',
  'tools-call-with-logging', 'tools-call-with-progress', 'tools-call-error',
];

/** The checks.json of each scenario the suite saved under `out`, by scenario. */
function savedChecks(out: string): Map<string, { id: string; status: string; details?: unknown }[]> {
  const checks = new Map<string, { id: string; status: string; details?: unknown }[]>();
  for (const dir of fs.readdirSync(out)) {
    const scenario = /^server-(.+)-\d{4}-\d\d-\d\dT/.exec(dir)?.[1];
    const file = path.join(out, dir, 'checks.json');
    if (scenario && fs.existsSync(file)) checks.set(scenario, JSON.parse(fs.readFileSync(file, 'utf8')) as { id: string; status: string }[]);
  }
  return checks;
}

// The same server module the extension runs, hosted in plain Node over the real ClientCore
// dispatcher, registry and gate, with the suite's fixture tools registered as another extension's
// group (test mode only); test/e2e/mcp-server.e2e.test.ts runs the suite against the extension.
describe('the editor MCP server passes the official MCP conformance suite (server mode, baseline in test/fixtures)', function () {
  this.timeout(240_000);
  let h: McpHarness;
  let out: string;
  after(async () => {
    await h?.close();
    if (out) await rm(out, { recursive: true, force: true });
  });

  it('every scenario passes except those in the baseline, each on its own checks (its fixture tools ran: no UNKNOWN_TOOL), and no baseline entry passes', async () => {
    const node = node22(ROOT);
    h = await startMcpHarness({ backgroundCalls: 'allow', conformanceFixtures: true });
    out = await mkdtemp(path.join(os.tmpdir(), 'mcp-conformance-'));
    const run = await runConformance(ROOT, node, h.server.port, h.token, out);
    assert.equal(run.exitCode, 0, run.output.slice(-4000));
    for (const scenario of PASSING) assert.match(run.output, new RegExp(`✓ ${scenario}: \\d+ passed, 0 failed`), scenario);
    assert.match(run.output, /Baseline check passed/);
    assert.ok(!run.output.includes(h.token), 'the token reached the suite');

    const checks = savedChecks(out);
    for (const scenario of PASSING) {
      const list = checks.get(scenario) ?? [];
      assert.ok(list.length > 0, `${scenario}: no checks saved`);
      assert.ok(list.every((c) => c.status === 'SUCCESS' || c.status === 'INFO'), `${scenario}: ${JSON.stringify(list).slice(0, 800)}`);
      assert.ok(!JSON.stringify(list).includes('UNKNOWN_TOOL'), `${scenario} passed on a tool the server lacks`);
    }
    const error = JSON.stringify(checks.get('tools-call-error'));
    assert.match(error, /TOOL_FAILED: This tool intentionally returns an error for testing/, 'the error came from the fixture tool, through the dispatcher');
    // Every fixture call went through the dispatcher: the chat's record has each of them.
    for (const tool of ['test_simple_text', 'test_image_content', 'test_audio_content', 'test_embedded_resource', 'test_multiple_content_types', 'test_tool_with_logging', 'test_tool_with_progress', 'test_error_handling']) {
      assert.ok(h.records.some((r) => r.toolName === tool && (r.status === 'succeeded' || r.status === 'failed')), `${tool} has no call record`);
    }
  });
});
