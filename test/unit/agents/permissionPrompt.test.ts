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

describe("an agent's permission prompt: the work its diffs cost", () => {
  /** CPU time `f` took, in ms: a bound on the work itself, whatever else the machine runs. */
  async function cpuMs(f: () => Promise<unknown>): Promise<number> {
    const start = process.cpuUsage();
    await f();
    const used = process.cpuUsage(start);
    return (used.user + used.system) / 1000;
  }

  it('works out the diffs only until the prompt is certain to be refused: 16 diffs of 1 MiB cost about one (and the prompt is still refused whole by the gate)', async () => {
    const side = (seed: number) => Array.from({ length: 64 * 1024 }, (_, i) => `line ${i} of ${seed}`.padEnd(15, '.')).join('\n');
    const content = Array.from({ length: 16 }, (_, i) => ({ type: 'diff' as const, path: `/w/f${i}.txt`, oldText: side(i), newText: side(i + 100) }));
    const one = await cpuMs(() => describePermission('Agent', { ...call('edit'), content: content.slice(0, 1) }, workspace));
    let prompt: Awaited<ReturnType<typeof describePermission>> | undefined;
    const all = await cpuMs(async () => (prompt = await describePermission('Agent', { ...call('edit'), content }, workspace)));
    assert.ok(all < one * 4 + 200, `16 diffs took ${all.toFixed(0)} ms of CPU, one took ${one.toFixed(0)} ms`);
    // Still every file is named, and the detail is longer than any consent surface shows (refused whole, never cut to fit).
    assert.match(prompt!.message, /f0\.txt.*f15\.txt/);
    assert.ok(prompt!.detail.length > 40_000, `${prompt!.detail.length} characters`);
  });
});
