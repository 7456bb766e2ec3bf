import assert from 'node:assert/strict';
import { describePermission } from '../../../src/agents/permissionPrompt';
import type { AgentToolCall } from '../../../src/agents/agentCallbacks';

const workspace = { folders: [], protectedPatterns: [] };
const call = (kind: string): AgentToolCall => ({ toolCallId: 't1', title: 'Do something', kind, content: [], locations: [] });

describe("an agent's permission prompt: the kind of request", () => {
  it("names ACP's kinds in the editor's words", async () => {
    assert.equal((await describePermission('Agent', call('execute'), workspace)).toolName, 'Agent Execute');
    assert.equal((await describePermission('Agent', call('made_up'), workspace)).toolName, 'Agent Tool');
  });

  it("names a kind the agent made up after an object's own keys as a Tool, never with the key's inherited value", async () => {
    for (const kind of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      const prompt = await describePermission('Agent', call(kind), workspace);
      assert.equal(prompt.toolName, 'Agent Tool', kind);
      assert.doesNotMatch(prompt.message + prompt.toolKey, /function|native code/, kind);
    }
  });
});
