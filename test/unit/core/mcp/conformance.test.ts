import * as assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { node22, runConformance } from '../../../support/mcp-conformance';
import { startMcpHarness, type McpHarness } from '../../../support/mcp-harness';

const ROOT = path.resolve(__dirname, '..', '..', '..', '..');

// The same server module the extension runs, hosted in plain Node over the real ClientCore
// dispatcher, registry and gate; test/vscode/mcp-server.test.ts runs the suite against the extension.
describe('the editor MCP server passes the official MCP conformance suite (server mode, baseline in test/fixtures)', function () {
  this.timeout(240_000);
  let h: McpHarness;
  let out: string;
  after(async () => {
    await h?.close();
    if (out) await rm(out, { recursive: true, force: true });
  });

  it('every scenario passes except those in the baseline, and no baseline entry passes', async () => {
    const node = node22(ROOT);
    h = await startMcpHarness({ backgroundCalls: 'allow' });
    out = await mkdtemp(path.join(os.tmpdir(), 'mcp-conformance-'));
    const run = await runConformance(ROOT, node, h.server.port, h.token, out);
    assert.equal(run.exitCode, 0, run.output.slice(-4000));
    for (const scenario of ['server-initialize', 'ping', 'tools-list', 'server-sse-multiple-streams']) {
      assert.match(run.output, new RegExp(`✓ ${scenario}: \\d+ passed, 0 failed`), scenario);
    }
    assert.match(run.output, /Baseline check passed/);
    assert.ok(!run.output.includes(h.token), 'the token reached the suite');
  });
});
