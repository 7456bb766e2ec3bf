/**
 * A turn's batch as run/toolCalls.ts runs it: server tools before client tools, calls together
 * unless one is sequential, results in the order the model asked, a call that throws a TOOL_FAILED
 * result while the batch goes on.
 */
import { strict as assert } from 'node:assert';
import { ErrorCode } from '../../../../src/protocol';
import type { PreparedCall } from '../../../../src/backend/run/toolCalls';
import { executeBatch, failure, modelContent, withUniqueIds } from '../../../../src/backend/run/toolCalls';
import type { ToolCallResult } from '../../../../src/backend/toolset/serverTools';

function call(name: string, executor: 'server' | 'client', log: string[], options: { sequential?: boolean; throws?: boolean } = {}): PreparedCall {
  return {
    executor,
    sequential: options.sequential === true,
    run: async (): Promise<ToolCallResult> => {
      log.push(`start ${name}`);
      await new Promise((resolve) => setImmediate(resolve));
      log.push(`end ${name}`);
      if (options.throws) throw new Error(`${name} broke`);
      return { outcome: 'succeeded', content: [{ type: 'text', text: name }] };
    },
  };
}

const texts = (results: ToolCallResult[]) => results.map((r) => (r.content[0]?.type === 'text' ? r.content[0].text : r.errorCode));

describe('backend tool calls: executeBatch', () => {
  it('runs server calls before client calls and returns the results in the order asked', async () => {
    const log: string[] = [];
    const results = await executeBatch([call('c1', 'client', log), call('s1', 'server', log), call('c2', 'client', log), call('s2', 'server', log)]);
    assert.deepEqual(texts(results), ['c1', 's1', 'c2', 's2']);
    assert.deepEqual(log, ['start s1', 'start s2', 'end s1', 'end s2', 'start c1', 'start c2', 'end c1', 'end c2']);
  });

  it('a sequential call waits for the calls before it and runs alone', async () => {
    const log: string[] = [];
    await executeBatch([call('a', 'client', log), call('b', 'client', log, { sequential: true }), call('c', 'client', log), call('d', 'client', log)]);
    assert.deepEqual(log, ['start a', 'end a', 'start b', 'end b', 'start c', 'start d', 'end c', 'end d']);
  });

  it('a call that throws is a TOOL_FAILED result with its message; the others still run', async () => {
    const log: string[] = [];
    const results = await executeBatch([call('a', 'client', log, { throws: true }), call('b', 'client', log)]);
    assert.equal(results[0].outcome, 'failed');
    assert.equal(results[0].errorCode, ErrorCode.ToolFailed);
    assert.equal(results[0].errorMessage, 'a broke');
    assert.deepEqual(texts(results.slice(1)), ['b']);
  });
});

describe('backend tool calls: what the model reads', () => {
  it('failure() cuts its message at 10,000 characters', () => {
    assert.equal(failure(ErrorCode.ToolFailed, 'x'.repeat(20_000)).errorMessage?.length, 10_000);
  });

  it('an error result starts with its code, a skip with "Skipped", an empty success says so', () => {
    assert.deepEqual(modelContent('T', failure(ErrorCode.Timeout, 'too slow')), [{ type: 'text', text: 'Error (TIMEOUT): too slow' }]);
    assert.deepEqual(modelContent('T', { outcome: 'skipped', content: [], errorMessage: 'the user skipped T' }), [{ type: 'text', text: 'Skipped: the user skipped T' }]);
    assert.deepEqual(modelContent('T', { outcome: 'succeeded', content: [] }), [{ type: 'text', text: 'T finished without output.' }]);
  });

  it('call ids are made non-empty, at most 200 characters and unique in the batch', () => {
    const ids = withUniqueIds([
      { id: 'a', name: 'X', arguments: '{}' },
      { id: 'a', name: 'X', arguments: '{}' },
      { id: '', name: 'X', arguments: '{}' },
      { id: 'y'.repeat(201), name: 'X', arguments: '{}' },
    ]).map((c) => c.id);
    assert.equal(ids[0], 'a');
    assert.equal(new Set(ids).size, 4);
    assert.ok(ids.every((id) => id.length > 0 && id.length <= 200));
  });
});
