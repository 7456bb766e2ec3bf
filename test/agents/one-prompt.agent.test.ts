/**
 * One prompt per action with real agents that ask their own permission before an MCP tool: the
 * agent's `session/request_permission` for one of the editor's tools is no prompt of its own; the
 * call comes to the editor with its arguments and the permission gate decides it there. So a tool
 * the gate lets run (Echo) is zero prompts, a tool it asks for (Guarded) exactly one, the gate's
 * own, and a denial's reason reaches the model in the tool's result (docs/AGENTS.md, "One prompt
 * per action").
 */
import assert from 'node:assert/strict';
import { isFinalStatus } from '../../src/core/callRecord';
import type { RunEvent } from '../../src/protocol';
import type { AgentName } from '../support/agents/agent-launch';
import { presetLaunchOf, runPresetAgent, type PresetRun } from '../support/agents/preset-run';

describe('one prompt per action: real agents that ask before each MCP tool', function () {
  this.timeout(180_000);
  let run: PresetRun | undefined;
  afterEach(async () => {
    await run?.close();
    run = undefined;
  });

  // Flat listings: the scripts call the Probe tools by name.
  for (const name of ['claude', 'claude-agent', 'gemini', 'codex'] as AgentName[]) {
    it(`${name}: no prompt for a call the gate lets run, one (the gate's) for a call it asks for, denied with a reason the model reads`, async () => {
      let guardedAsks = 0;
      run = await runPresetAgent(name, {
        files: { 'notes.txt': 'alpha\n' },
        launch: { ...presetLaunchOf(name), mcpTools: 'flat' },
        steps: () => [
          { tool: 'Echo', args: { text: 'hi' } },
          { tool: 'Guarded', args: {} },
          { tool: 'Guarded', args: {} },
          { text: 'done' },
        ],
        decide: () => (guardedAsks++ === 0 ? { answer: 'deny', reason: 'not now, try once more' } : 'allow'),
      });
      await run.h.prompt('Go.');
      const finished = run.events.find((e): e is Extract<RunEvent, { type: 'runFinished' }> => e.type === 'runFinished');
      assert.equal(finished?.reason, 'completed', JSON.stringify(run.events.filter((e) => e.type === 'runError')));
      const asked = run.prompts.map((p) => `${p.toolName}: ${p.message}`);
      assert.deepEqual(asked, ['Guarded: Allow Guarded?', 'Guarded: Allow Guarded?'], 'only the gate\'s prompts, one per Guarded call');
      assert.deepEqual(run.h.records.filter((r) => isFinalStatus(r.status)).map((r) => `${r.toolName}:${r.status}`), ['Echo:succeeded', 'Guarded:denied', 'Guarded:succeeded']);
      const afterDenied = run.launched.model.requests.main[2]?.toolResults.at(-1) ?? '';
      assert.match(afterDenied, /PERMISSION_DENIED.*not now, try once more/s);
    });
  }
});
