import { runPresetAgent, presetLaunchOf } from '../support/agents/preset-run';
import type { AgentName } from '../support/agents/agent-launch';

const name = (process.env.PROBE_AGENT ?? 'opencode') as AgentName;
describe('probe collapsed', function () {
  this.timeout(120000);
  it(name, async () => {
    const run = await runPresetAgent(name, {
      files: { 'notes.txt': 'alpha\nbeta\n' },
      probeTools: false,
      launch: { ...presetLaunchOf(name), mcpTools: 'collapsed' },
      steps: () => [{ tool: 'Workspace', args: {} }, { tool: 'GetWorkspaceFolders', args: {} }, { text: 'done' }],
    });
    try {
      await run.h.prompt('go');
      console.log('PROMPTS', run.prompts.map((p) => `${p.toolName}: ${p.message}`));
      console.log('RECORDS', run.h.records.map((r) => `${r.toolName}:${r.status}`));
      console.log('ERRS', JSON.stringify(run.events.filter((e) => e.type === 'runError')).slice(0, 600));
      for (const r of run.launched.model.requests.main) console.log('REQ', r.replies, 'tools=', r.tools.filter((t) => /clienttools/.test(t)).join(','), 'results=', JSON.stringify(r.toolResults.map((t) => t.slice(0, 200))));
    } finally { await run.close(); }
  });
});
