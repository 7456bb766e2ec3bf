/**
 * Which real agents take the editor's tool groups collapsed (src/core/mcpServer/mcpGroups.ts): the
 * model calls a group's container, the server says `list_changed` on that call and answers once the
 * agent listed the tools again, and the agent's next model request must offer the group's tools.
 * Each preset's `mcpTools` (src/agents/presetLaunch.ts) must match what its agent does here. The
 * same runs measure what the editor's tools cost in the agent's own model request both ways
 * (docs/AGENTS.md, "The editor's tools"; printed at the end).
 */
import assert from 'node:assert/strict';
import type { RunEvent } from '../../src/protocol';
import type { AgentName } from '../support/agents/agent-launch';
import { presetLaunchOf, runPresetAgent, type PresetRun } from '../support/agents/preset-run';
import { editorToolCost, type EditorToolCost } from '../support/agents/tool-tokens';

/** What each agent did in the test below; the presets follow it. */
const HONOURS_LIST_CHANGED: Record<AgentName, boolean> = {
  claude: false,
  'claude-agent': true,
  gemini: true,
  codex: false,
  opencode: true,
};

const WORKSPACE_TOOLS = ['GetWorkspaceFolders', 'FindFiles', 'GetOpenEditors', 'GetDiagnostics'];

function offers(tools: readonly string[], tool: string): boolean {
  return tools.some((t) => t === tool || t.endsWith(`_${tool}`) || t.endsWith(`.${tool}`));
}

function runErrors(run: PresetRun): string {
  return JSON.stringify(run.events.filter((e: RunEvent) => e.type === 'runError'));
}

describe('collapsed tool groups with real agents: who re-lists on list_changed, and what each listing costs', function () {
  this.timeout(180_000);
  const figures: string[] = [];
  let run: PresetRun | undefined;
  afterEach(async () => {
    await run?.close();
    run = undefined;
  });
  after(() => {
    if (figures.length > 0) console.log(`\n  The editor's tools in each agent's first model request (o200k_base tokens of its own definitions):\n${figures.map((f) => `    ${f}`).join('\n')}\n`);
  });

  for (const name of Object.keys(HONOURS_LIST_CHANGED) as AgentName[]) {
    const honours = HONOURS_LIST_CHANGED[name];
    it(`${name}: ${honours ? 'expands a group mid-turn and calls its tool' : 'does not pick up an expanded group in the same turn: flat'}; the preset says ${honours ? 'collapsed' : 'flat'}`, async () => {
      assert.equal(presetLaunchOf(name).mcpTools, honours ? 'collapsed' : 'flat');

      run = await runPresetAgent(name, { files: { 'notes.txt': 'alpha\n' }, probeTools: false, launch: { ...presetLaunchOf(name), mcpTools: 'flat' }, steps: () => [{ text: 'done' }] });
      await run.h.prompt('Say done.');
      const flat = editorToolCost(run.launched.model.requests.main[0] ?? assert.fail('no model request'));
      await run.close();
      run = undefined;

      run = await runPresetAgent(name, {
        files: { 'notes.txt': 'alpha\n' },
        probeTools: false,
        launch: { ...presetLaunchOf(name), mcpTools: 'collapsed' },
        steps: () => (honours ? [{ tool: 'Workspace', args: {} }, { tool: 'GetWorkspaceFolders', args: {} }, { text: 'done' }] : [{ tool: 'Workspace', args: {} }, { text: 'done' }]),
      });
      await run.h.prompt('Look at the workspace.');
      const requests = run.launched.model.requests.main;
      const before = requests[0]?.tools ?? [];
      const after = requests[1]?.tools ?? assert.fail(`no second model request: ${runErrors(run)}`);
      assert.ok(offers(before, 'Workspace') && !offers(before, 'GetWorkspaceFolders'), `collapsed at first: ${before.join(', ')}`);
      const collapsed = editorToolCost(requests[0] as never);
      const expanded: EditorToolCost = editorToolCost(requests[1] as never);
      assert.ok(collapsed.tokens < flat.tokens / 4, `collapsed ${collapsed.tokens} tokens, flat ${flat.tokens}`);
      if (honours) {
        for (const tool of WORKSPACE_TOOLS) assert.ok(offers(after, tool), `${tool} offered after the expansion: ${after.join(', ')}`);
        const call = run.h.records.find((r) => r.toolName === 'GetWorkspaceFolders' && r.status === 'succeeded');
        assert.ok(call, `the expanded tool ran: ${runErrors(run)}; the gate's records: ${JSON.stringify(run.h.records.map((r) => [r.toolName, r.status]))}; the model's last request: ${JSON.stringify(requests.at(-1)).slice(-1500)}`);
        figures.push(`${name}: flat ${flat.tools} tools, ${flat.tokens} tokens; collapsed ${collapsed.tools} containers, ${collapsed.tokens} tokens; after expanding Workspace ${expanded.tools} tools, ${expanded.tokens} tokens`);
      } else {
        assert.ok(!offers(after, 'GetWorkspaceFolders'), `${name} picked up the expansion after all: ${after.join(', ')}`);
        figures.push(`${name}: flat ${flat.tools} tools, ${flat.tokens} tokens; collapsed ${collapsed.tools} containers, ${collapsed.tokens} tokens, but it never offers an expanded group's tools in the turn`);
      }
    });
  }
});
