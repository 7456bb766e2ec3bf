/**
 * What each preset's launch (src/agents/presetLaunch.ts) makes the real agent do, one test per claim
 * of the table in docs/AGENTS.md ("What the permission gate sees"): the agent, pinned and from the
 * cache, runs through the extension's ACP client in plain Node against its fake model endpoint with
 * exactly the arguments, environment, files and `_meta` the extension gives the preset. Prompts are
 * the chat's (the default prompt style).
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { RunEvent } from '../../src/protocol';
import { eventually } from '../support/backend-harness';
import { runPresetAgent, type PresetRun } from '../support/agents/preset-run';

function finished(run: PresetRun): Extract<RunEvent, { type: 'runFinished' }> | undefined {
  return run.events.find((e): e is Extract<RunEvent, { type: 'runFinished' }> => e.type === 'runFinished');
}

function promptLines(run: PresetRun): string[] {
  return run.prompts.map((p) => `${p.toolName}: ${p.message}`);
}

describe('preset launches: what the real agents leave to the permission gate', function () {
  this.timeout(180_000);
  let run: PresetRun | undefined;
  afterEach(async () => {
    await run?.close();
    run = undefined;
  });

  it('Claude Code (claude-code-acp): no tool of its own that searches, fetches or delegates; reads, writes and commands are the client\'s', async () => {
    run = await runPresetAgent('claude', {
      files: { 'notes.txt': 'alpha\n' },
      steps: (file) => [{ tool: 'mcp__acp__Read', args: { file_path: file('notes.txt') } }, { text: 'done' }],
    });
    await run.h.prompt('Read the notes.');
    assert.equal(finished(run)?.reason, 'completed');
    const offered = run.launched.model.requests.main[0]?.tools ?? [];
    for (const tool of ['Glob', 'Grep', 'WebFetch', 'WebSearch', 'Task', 'NotebookEdit', 'Read', 'Write', 'Edit', 'Bash']) {
      assert.ok(!offered.includes(tool), `${tool} is offered: ${offered.join(', ')}`);
    }
    for (const tool of ['mcp__acp__Read', 'mcp__acp__Write', 'mcp__acp__Edit', 'mcp__acp__Bash', `mcp__${run.h.mcp.name}__FindFiles`, `mcp__${run.h.mcp.name}__SearchText`]) {
      assert.ok(offered.includes(tool), `${tool} is not offered: ${offered.join(', ')}`);
    }
    assert.ok(run.h.records.some((r) => r.toolName === 'ReadFile' && r.status === 'succeeded'), 'the read was the editor\'s ReadFile');
  });

  it('Claude Code (claude-agent-acp): no built-in tool at all, only the editor\'s, each call through the gate', async () => {
    run = await runPresetAgent('claude-agent', {
      files: { 'notes.txt': 'alpha\n' },
      // The editor's groups are collapsed for this agent: the model expands IDE first.
      steps: () => [{ tool: 'IDE', args: {} }, { tool: 'ReadFile', args: { path: 'notes.txt' } }, { text: 'done' }],
    });
    await run.h.prompt('Read the notes.');
    assert.equal(finished(run)?.reason, 'completed');
    for (const request of run.launched.model.requests.main) {
      assert.ok(request.tools.length > 0);
      assert.deepEqual(request.tools.filter((t) => !t.startsWith(`mcp__${run?.h.mcp.name}__`)), [], 'only the editor\'s tools are offered');
    }
    const read = run.h.records.find((r) => r.toolName === 'ReadFile' && r.status === 'succeeded');
    assert.equal(read?.background, false);
    assert.match(run.launched.model.requests.main[2]?.toolResults.at(-1) ?? '', /alpha/);
  });

  it('Gemini CLI: asks before every read and every command (echo too), and offers no search tool of its own', async () => {
    run = await runPresetAgent('gemini', {
      files: { 'notes.txt': 'alpha\n' },
      steps: (file) => [
        { tool: 'read_file', args: { file_path: file('notes.txt') } },
        { tool: 'run_shell_command', args: { command: 'echo said-by-gemini', dir_path: file('') } },
        { tool: 'run_shell_command', args: { command: 'touch made-by-gemini', dir_path: file('') } },
        { text: 'done' },
      ],
      decide: (p) => (p.message.includes('touch') ? { answer: 'deny', reason: 'no new files' } : 'allow'),
    });
    await run.h.prompt('Go.');
    assert.equal(finished(run)?.reason, 'completed');
    const asked = promptLines(run);
    assert.ok(asked.includes('Test Agent Read: Let Test Agent read notes.txt?'), asked.join('\n'));
    assert.ok(asked.some((m) => m.startsWith('Test Agent Execute: Let Test Agent run `echo said-by-gemini`')), asked.join('\n'));
    assert.ok(asked.some((m) => m.startsWith('Test Agent Execute: Let Test Agent run `touch made-by-gemini`')), asked.join('\n'));
    assert.equal(existsSync(run.file('made-by-gemini')), false, 'the denied command ran');
    // Gemini would tell its model only that the user cancelled the call (the reason, sent in `_meta`,
    // is not read) and go on; its preset ends the turn at a Deny with a reason (endTurnAtReasonedDeny),
    // so its model is not asked again in that turn and the very next request carries the reason.
    const requests = run.launched.model.requests.main;
    assert.deepEqual(requests.map((r) => r.replies), [0, 1, 2, 3]);
    assert.doesNotMatch(JSON.stringify(requests[2]?.body), /no new files/);
    assert.match(JSON.stringify(requests[3]?.body), /The user declined your request to run a command, with this reason: \\"no new files\\"/);
    const offered = run.launched.model.requests.main[0]?.tools ?? [];
    for (const tool of ['glob', 'grep_search', 'list_directory', 'read_many_files']) assert.ok(!offered.includes(tool), `${tool} is offered`);
    // The editor's Search group (FindFiles, SearchText), collapsed for Gemini CLI until its model expands it.
    assert.ok(offered.includes(`mcp_${run.h.mcp.name}_Search`), offered.join(', '));
  });

  it('opencode: asks before each read, search, edit and command, whatever the workspace\'s opencode.json allows', async () => {
    run = await runPresetAgent('opencode', {
      files: { 'notes.txt': 'alpha\n' },
      before: ({ file }) => writeFileSync(file('opencode.json'), JSON.stringify({ permission: { read: 'allow', edit: 'allow', bash: 'allow', glob: 'allow', grep: 'allow' } })),
      steps: (file) => [
        { tool: 'read', args: { filePath: file('notes.txt') } },
        { tool: 'grep', args: { pattern: 'alpha' } },
        { tool: 'bash', args: { command: 'echo said-by-opencode', description: 'Say' } },
        { tool: 'write', args: { filePath: file('notes.txt'), content: 'ALPHA\n' } },
        { text: 'done' },
      ],
    });
    await run.h.prompt('Go.');
    assert.equal(finished(run)?.reason, 'completed');
    const asked = promptLines(run);
    assert.ok(asked.includes('Test Agent Read: Let Test Agent read notes.txt?'), asked.join('\n'));
    assert.ok(asked.some((m) => m.startsWith('Test Agent Search:')), asked.join('\n'));
    assert.ok(asked.some((m) => m.startsWith('Test Agent Execute: Let Test Agent run `echo said-by-opencode`')), asked.join('\n'));
    // The edit's permission request is the per-hunk review itself (src/agents/editReview.ts, the
    // preset's reviewEditPermissions): no ordinary prompt asks about it; the review (OpenDiff, every
    // hunk accepted here) decides, and the fs/write_text_file opencode sends alongside is answered
    // from that decision, not reviewed again.
    assert.ok(!asked.some((m) => m.startsWith('Test Agent Edit:')), asked.join('\n'));
    const records = run.h.records;
    await eventually(() => assert.equal(records.filter((r) => r.toolName === 'OpenDiff' && r.status === 'succeeded').length, 1, JSON.stringify(records.map((r) => [r.toolName, r.status]))), 10_000);
    assert.equal(readFileSync(run.file('notes.txt'), 'utf8'), 'ALPHA\n');
  });

  it('Codex: asks before a command that changes anything; runs the ones it deems read-only (echo) on its own, in its sandbox', async () => {
    run = await runPresetAgent('codex', {
      files: { 'notes.txt': 'alpha\n' },
      steps: () => [
        { tool: 'exec_command', args: { cmd: 'echo said-by-codex' } },
        { tool: 'exec_command', args: { cmd: 'touch made-by-codex' } },
        { text: 'done' },
      ],
      decide: () => ({ answer: 'deny', reason: 'no new files' }),
    });
    await run.h.prompt('Go.');
    // Codex's only way to decline is "abort": it ends its turn there (its model is not called again
    // in it); the chat then sends the reason as the next prompt, so its model's next request has it.
    assert.equal(finished(run)?.reason, 'cancelled');
    const requests = run.launched.model.requests.main;
    assert.equal(requests.length, 3);
    assert.doesNotMatch(JSON.stringify(requests[1]?.body), /no new files/);
    assert.match(JSON.stringify(requests[2]?.body), /The user declined your request to run a command, with this reason: \\"no new files\\"/);
    const asked = promptLines(run);
    assert.equal(asked.length, 1, asked.join('\n'));
    assert.match(asked[0] ?? '', /^Test Agent Execute: Let Test Agent run `\/bin\/bash -lc touch made-by-codex`/);
    assert.equal(existsSync(run.file('made-by-codex')), false);
  });
});
