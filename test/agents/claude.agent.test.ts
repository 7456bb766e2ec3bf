/**
 * The real Claude Code (claude-code-acp 0.16.2, pinned, installed into the cache by
 * scripts/provision-agents.mjs) through the extension's ACP client in plain Node, against a fake
 * Anthropic Messages endpoint that scripts the model (test/support/agents/fake-anthropic.ts). In
 * one turn the model calls the editor's own tool through the injected MCP server, reads a file
 * (fs/read_text_file → ReadFile), proposes a write reviewed per hunk with one hunk rejected (only
 * the kept hunk reaches the disk, and the model reads which), runs a command the user denies with a
 * reason (the reason reaches the model's next request), and runs one the user allows.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import type { PermissionAnswer, PermissionReply, PermissionPrompt } from '../../src/core/consent/presenter';
import type { RunEvent } from '../../src/protocol';
import { SupervisedProcess } from '../../src/tools/terminal/processSupervisor';
import { AGENT_NAME, startAcpHarness, type AcpHarness } from '../support/agents/acp-harness';
import { launchAgent, type AgentLaunch } from '../support/agents/agent-launch';
import type { AgentStep } from '../support/agents/script';

/** Answers every prompt the harness's host shows, by `decide`, until the harness closes. */
function answerPrompts(h: AcpHarness, decide: (prompt: PermissionPrompt) => PermissionAnswer | PermissionReply): void {
  h.ws.host.holdPrompts();
  const loop = async (): Promise<void> => {
    for (;;) {
      const held = await h.ws.host.nextPrompt();
      const answer = decide(held.prompt);
      held.answer(typeof answer === 'string' ? answer : (answer as never));
    }
  };
  void loop();
}

describe('real agent: Claude Code through claude-code-acp, offline against a fake Anthropic endpoint', function () {
  this.timeout(180_000);
  let launch: AgentLaunch | undefined;
  let h: AcpHarness | undefined;
  afterEach(async () => {
    await h?.close();
    await launch?.dispose();
    h = undefined;
    launch = undefined;
  });

  it('reads, writes with one hunk rejected, runs a command denied with a reason then one allowed, and calls an injected editor tool', async () => {
    const files = { 'notes.txt': 'alpha\nbeta\ngamma\ndelta\nepsilon\n' };
    // The file's absolute path is known once the workspace exists; the script reads it from the first request.
    const steps = (file: string): AgentStep[] => [
      { tool: 'Echo', args: { text: 'hello from claude' } },
      { tool: 'mcp__acp__Read', args: { file_path: file } },
      { tool: 'mcp__acp__Write', args: { file_path: file, content: 'ALPHA\nbeta\ngamma\ndelta\nEPSILON\n' } },
      { tool: 'mcp__acp__Bash', args: { command: 'echo denied-run', description: 'Say something', timeout: 20000 } },
      { tool: 'mcp__acp__Bash', args: { command: 'echo allowed-run', description: 'Say something', timeout: 20000 } },
      { text: 'All done.' },
    ];
    launch = await launchAgent('claude', []);
    h = await startAcpHarness({ files, program: { command: launch.command, args: launch.args, env: launch.env } });
    const file = h.ws.file('notes.txt');
    launch.model.setSteps(steps(file));
    h.ws.host.catalog.commandHandler = async (request, signal) => {
      const run = new SupervisedProcess({ ...request, shell: true }, { signal });
      const end = await run.ended;
      if (!end.started) throw end.error;
      return { exitCode: end.exitCode, output: end.output, truncated: end.truncated, timedOut: end.timedOut, stopped: end.stopped, via: 'process' };
    };
    const asked: PermissionPrompt[] = [];
    answerPrompts(h, (prompt) => {
      asked.push(prompt);
      if (prompt.toolName === 'RunInTerminal' && prompt.message.includes('denied-run')) return { answer: 'deny', reason: 'not this one, say allowed-run' };
      return 'allow';
    });
    void h.ws.host.catalog.nextDiff().then((diff) => diff.accept('ALPHA\nbeta\ngamma\ndelta\nepsilon\n', 'keep the last line'));

    await h.prompt('Do the scripted steps.');

    const events = h.events;
    const finished = events.filter((e): e is Extract<RunEvent, { type: 'runFinished' }> => e.type === 'runFinished');
    assert.equal(finished.length, 1);
    assert.equal(finished[0]?.reason, 'completed', JSON.stringify(events.filter((e) => e.type === 'runError')));

    // The injected editor tool ran through the session's MCP server, as the user's call, named after the agent.
    const echo = h.records.find((r) => r.toolName === 'Echo' && r.status === 'succeeded');
    assert.ok(echo, 'Echo ran in the editor');
    assert.equal(echo.caller, AGENT_NAME);
    assert.equal(echo.background, false);

    // The read went through ReadFile.
    assert.ok(h.records.some((r) => r.toolName === 'ReadFile' && r.status === 'succeeded'));

    // Only the kept hunk is on disk, and the model read which hunks the user kept and why.
    assert.equal(await readFile(file, 'utf8'), 'ALPHA\nbeta\ngamma\ndelta\nepsilon\n');
    const afterWrite = await launch.model.requests.waitForStep(3);
    assert.match(afterWrite.toolResults.at(-1) ?? '', /accepted only part of the change to notes\.txt: kept hunks 1; rejected hunks 2.*keep the last line/);

    // The denied command's reason reached the model's next request; the allowed one ran and its output came back.
    const afterDenied = await launch.model.requests.waitForStep(4);
    assert.match(afterDenied.toolResults.at(-1) ?? '', /not this one, say allowed-run/);
    const afterAllowed = await launch.model.requests.waitForStep(5);
    assert.match(afterAllowed.toolResults.at(-1) ?? '', /allowed-run/);
    assert.deepEqual(h.ws.host.catalog.commands.map((c) => c.command), ['echo allowed-run']);

    // The agent's own permission requests were asked through the gate, each naming its exact target;
    // its request for the editor's Echo was no prompt (the gate decided the call itself: Echo asks nothing).
    const agentAsks = asked.filter((p) => p.groupName === AGENT_NAME).map((p) => p.message);
    assert.ok(!agentAsks.some((m) => /Echo/.test(m)), agentAsks.join('\n'));
    assert.ok(agentAsks.some((m) => m === 'Let Test Agent change notes.txt?' || m === 'Let Test Agent create notes.txt?'), agentAsks.join('\n'));
    assert.ok(agentAsks.some((m) => m.startsWith('Let Test Agent run `echo denied-run`')), agentAsks.join('\n'));
    assert.match(events.filter((e) => e.type === 'textDelta').map((e) => (e as { text: string }).text).join(''), /All done\./);
  });
});
