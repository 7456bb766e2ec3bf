/**
 * The real Gemini CLI (0.61.0, `--acp`, pinned, from the cache) through the extension's ACP client
 * in plain Node, against a fake Gemini API (test/support/agents/fake-gemini.ts). Gemini asks
 * permission for a call without announcing it first, with the call described in the request (the
 * diff of a write, the arguments of an MCP tool): the client shows that card and prompt. Its write
 * goes through fs/write_text_file, so OpenDiff's per-hunk review decides what reaches the disk.
 * Its shell commands run inside Gemini CLI itself (no terminal/*), so they are not part of this test.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import type { PermissionPrompt } from '../../src/core/consent/presenter';
import type { RunEvent } from '../../src/protocol';
import { AGENT_NAME, startAcpHarness, type AcpHarness } from '../support/agents/acp-harness';
import { launchAgent, type AgentLaunch } from '../support/agents/agent-launch';

describe('real agent: Gemini CLI over ACP, offline against a fake Gemini API', function () {
  this.timeout(180_000);
  let launch: AgentLaunch | undefined;
  let h: AcpHarness | undefined;
  afterEach(async () => {
    await h?.close();
    await launch?.dispose();
    h = undefined;
    launch = undefined;
  });

  it('calls an injected editor tool and writes through a per-hunk review with one hunk rejected', async () => {
    launch = await launchAgent('gemini', []);
    h = await startAcpHarness({ files: { 'notes.txt': 'alpha\nbeta\ngamma\ndelta\nepsilon\n' }, program: { command: launch.command, args: launch.args, env: launch.env } });
    const file = h.ws.file('notes.txt');
    launch.model.setSteps([
      { tool: 'Echo', args: { text: 'hello from gemini' } },
      { tool: 'write_file', args: { file_path: file, content: 'ALPHA\nbeta\ngamma\ndelta\nEPSILON\n' } },
      { text: 'All done.' },
    ]);
    const asked: PermissionPrompt[] = [];
    h.ws.host.holdPrompts();
    void (async () => {
      for (;;) {
        const held = await h.ws.host.nextPrompt();
        asked.push(held.prompt);
        held.answer('allow');
      }
    })();
    void h.ws.host.catalog.nextDiff().then((diff) => diff.accept('ALPHA\nbeta\ngamma\ndelta\nepsilon\n', 'keep the last line'));

    await h.prompt('Do the scripted steps.');

    const finished = h.events.find((e): e is Extract<RunEvent, { type: 'runFinished' }> => e.type === 'runFinished');
    assert.equal(finished?.reason, 'completed', JSON.stringify(h.events.filter((e) => e.type === 'runError')));
    const echo = h.records.find((r) => r.toolName === 'Echo' && r.status === 'succeeded');
    assert.equal(echo?.caller, AGENT_NAME);
    assert.equal(await readFile(file, 'utf8'), 'ALPHA\nbeta\ngamma\ndelta\nepsilon\n');
    const afterWrite = await launch.model.requests.waitForStep(2);
    // Gemini CLI 0.61 turns a client's JSON-RPC error into "[object Object]": its model learns that
    // the write failed, not which hunks the user kept (docs/AGENTS.md says so for this agent).
    assert.match(afterWrite.toolResults.at(-1) ?? '', /Error writing to file/);
    const messages = asked.filter((p) => p.groupName === AGENT_NAME).map((p) => String(p.message));
    // Its request for the editor's Echo was no prompt: the gate decided the call itself (Echo asks nothing).
    assert.ok(!messages.some((m) => m.includes('Echo')), messages.join('\n'));
    assert.ok(messages.includes('Let Test Agent change notes.txt?'), messages.join('\n'));
    const cards = h.events.filter((e): e is Extract<RunEvent, { type: 'toolCallStarted' }> => e.type === 'toolCallStarted').map((e) => e.toolName);
    assert.ok(cards.includes(`Echo (${h.mcp.name} MCP Server)`), `the unannounced call got its card: ${cards.join(', ')}`);
  });
});
