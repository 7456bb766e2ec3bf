/**
 * The table of an agent's tool calls (src/agents/toolCalls.ts): what it keeps of what the agent
 * said is bounded, ids included.
 */
import assert from 'node:assert/strict';
import { TOOL_CALL_LIMITS, ToolCallTable } from '../../../src/agents/toolCalls';

describe('agent tool call table', () => {
  it('merges a call\'s updates by id, the title clipped', () => {
    const table = new ToolCallTable(() => 5);
    table.merge({ toolCallId: 'c1', title: 'Read', kind: 'read', status: 'pending' });
    const merged = table.merge({ toolCallId: 'c1', title: 't'.repeat(1000), status: 'completed' });
    assert.equal(merged?.isNew, false);
    assert.equal(merged?.call.kind, 'read');
    assert.equal(merged?.call.status, 'completed');
    assert.equal(merged?.call.title.length, TOOL_CALL_LIMITS.maxTitleChars);
    assert.equal(table.size, 1);
  });

  it('does not track a call whose id is over the limit: the fuzzer\'s 8 MiB id was kept after its case, and 500 of them would be gigabytes', () => {
    const table = new ToolCallTable();
    for (let i = 0; i < 20; i++) assert.equal(table.merge({ toolCallId: `${i}`.padEnd(1024 * 1024, 'a'), title: 'Edit', status: 'pending' }), undefined);
    assert.equal(table.size, 0);
    const longest = 'b'.repeat(TOOL_CALL_LIMITS.maxIdChars);
    assert.equal(table.merge({ toolCallId: longest, title: 'Edit' })?.isNew, true);
    assert.equal(table.get(longest)?.title, 'Edit');
  });
});
