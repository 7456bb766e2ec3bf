import { strict as assert } from 'node:assert';
import { DemoModel } from '../../../../src/backend/demo/demoModel';
import type { ModelRequest } from '../../../../src/backend/model/chatModel';
import { describeSwitchedOff, MAX_NAMED_TOOLS, NOTHING_SWITCHED_OFF, SWITCHED_OFF_CONTEXT_NAME } from '../../../../src/vscode/toolGroups/switchedOffText';

/** The demo's answer to one user message, with the system prompt the backend builds from context items (src/backend/toolset/toolState.ts). */
async function demoAnswer(text: string, context: { name: string; text: string }[]): Promise<string> {
  const system = ['You are a helpful agent.', ...context.map((c) => `## Context: ${c.name}\n${c.text}`)].join('\n\n');
  const request: ModelRequest = { messages: [{ role: 'system', content: system }, { role: 'user', content: text }], tools: [] };
  let answer = '';
  for await (const chunk of new DemoModel().stream(request, new AbortController().signal)) if (chunk.type === 'text') answer += chunk.text;
  return answer;
}

describe('switched-off tools: what the agent is told (issue 29 item 9)', () => {
  it('names each tool and its group, says where the user turns it on again, and counts past the cap', () => {
    const text = describeSwitchedOff([{ name: 'DeleteFile', group: 'IDE' }, { name: 'RunInTerminal', group: 'Terminal' }]);
    assert.match(text, /^The user switched these editor tools off in the Tool Groups view \(Deny \(Off\)\)/);
    assert.match(text, /\n- DeleteFile \(IDE\)\n- RunInTerminal \(Terminal\)\n/);
    assert.match(text, /right-clicking it there and choosing Ask Every Time or Allow Without Asking turns it on again\.$/);
    assert.equal(describeSwitchedOff([]), NOTHING_SWITCHED_OFF);
    const many = describeSwitchedOff(Array.from({ length: MAX_NAMED_TOOLS + 7 }, (_, i) => ({ name: `T${i}`, group: 'G' })));
    assert.equal(many.split('\n').filter((l) => /^- T\d+ \(G\)$/.test(l)).length, MAX_NAMED_TOOLS);
    assert.match(many, /\n- and 7 more\n/);
  });

  it('the offline demo names the switched-off tool and the Tool Groups view instead of "no tool"', async () => {
    const off = { name: SWITCHED_OFF_CONTEXT_NAME, text: describeSwitchedOff([{ name: 'DeleteFile', group: 'IDE' }]) };
    assert.equal(await demoAnswer('delete hello.txt', [off, { name: 'editor', text: 'Active editor: a.ts' }]),
      'I could not do it: DeleteFile is switched off in your Tool Groups view. To use it, right-click DeleteFile there and choose Ask Every Time or Allow Without Asking.');
    assert.match(await demoAnswer('delete hello.txt', []), /the editor offers no tool for it right now/);
    assert.match(await demoAnswer('delete hello.txt', [{ name: SWITCHED_OFF_CONTEXT_NAME, text: NOTHING_SWITCHED_OFF }]), /the editor offers no tool for it right now/);
  });
});
