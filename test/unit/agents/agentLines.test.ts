import * as assert from 'node:assert/strict';
import * as acp from '@agentclientprotocol/sdk';
import { agentLines, isRefusal, type AgentLinesOptions } from '../../../src/agents/agentLines';
import { topLevelValues } from '../../../src/protocol';
import { RecordingLogger } from '../../support/dispatch-harness';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function source(chunks: string[]): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const c of chunks) controller.enqueue(encoder.encode(c));
      controller.close();
    },
  });
}

function setup(chunks: string[], options: Partial<AgentLinesOptions> = {}) {
  const sent: string[] = [];
  const logger = new RecordingLogger();
  const stream = agentLines(source(chunks), {
    agentName: 'Agent', maxMessageBytes: 1_000, logger, refusalMark: 'mark',
    send: (line) => sent.push(decoder.decode(line)),
    structure: { maxValues: 100, maxMembers: 10 },
    ...options,
  });
  return { stream, sent, logger };
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string[]> {
  const out: string[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return out;
    out.push(decoder.decode(value));
  }
}

const members = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));

describe('agentLines', () => {
  it('hands on whole lines, one a read, joined across chunks, the last without its newline too', async () => {
    const { stream } = setup(['{"a":1}\n{"b":', '2}\n{"c":3}\n{"d"', ':4}']);
    assert.deepEqual(await readAll(stream), ['{"a":1}\n', '{"b":2}\n', '{"c":3}\n', '{"d":4}']);
  });

  it('ends the stream with the SDK\'s MessageTooLargeError for a line over the byte limit, split or whole', async () => {
    for (const chunks of [[`"${'x'.repeat(1_100)}"\n`], ['"', 'x'.repeat(600), 'x'.repeat(600), '"\n']]) {
      await assert.rejects(readAll(setup(chunks).stream), acp.MessageTooLargeError);
    }
  });

  it('answers a request over the structure limits with MESSAGE_TOO_LARGE and does not hand it on', async () => {
    const request = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'fs/read_text_file', params: { _meta: members(11) } });
    const { stream, sent } = setup([`${request}\n{"ok":1}\n`]);
    assert.deepEqual(await readAll(stream), ['{"ok":1}\n']);
    assert.equal(sent.length, 1);
    const answer = JSON.parse(sent[0]) as { id: number; error: { code: number; message: string; data: { code: string } } };
    assert.equal(answer.id, 7);
    assert.equal(answer.error.data.code, 'MESSAGE_TOO_LARGE');
    assert.ok(!sent[0].includes('mark'), 'the agent is not told the connection\'s mark (it could then make its own errors look like refusals made here)');
    assert.match(answer.error.message, /fs\/read_text_file refused: an object in the message has more than 10 members/);
  });

  it('turns an answer over the limits into an error answer marked as the connection\'s, and drops a notification; logged once', async () => {
    const answer = JSON.stringify({ jsonrpc: '2.0', id: 'r1', result: { list: Array.from({ length: 200 }, () => 0) } });
    const note = JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { _meta: members(50) } });
    const { stream, sent, logger } = setup([`${note}\n${answer}\n${note}\n`]);
    const lines = await readAll(stream);
    assert.equal(lines.length, 1);
    const error = JSON.parse(lines[0]) as { id: string; error: { code: number; message: string; data: unknown } };
    assert.equal(error.id, 'r1');
    assert.deepEqual(error.error.data, { code: 'MESSAGE_TOO_LARGE', refused: 'mark' });
    assert.ok(isRefusal(new acp.RequestError(error.error.code, error.error.message, error.error.data), 'mark'));
    assert.ok(!isRefusal(new acp.RequestError(error.error.code, error.error.message, { code: 'MESSAGE_TOO_LARGE' }), 'mark'), 'the agent cannot make one');
    assert.equal(sent.length, 0);
    assert.equal(logger.entries.filter((e) => e.message === 'agent message refused').length, 1);
  });

  it('gives the event loop a turn between slices: with a slice of 0 ms, an immediate runs between any two lines', async () => {
    const { stream } = setup([Array.from({ length: 50 }, (_, i) => `{"n":${i}}\n`).join('')], { sliceMs: 0 });
    const reader = stream.getReader();
    let turns = 0;
    for (let i = 0; i < 50; i++) {
      const seen = turns;
      setImmediate(() => turns++);
      await reader.read();
      assert.ok(turns > seen, `no turn before line ${i}`);
    }
  });

  it('reads a top-level id or method only, past strings with escaped quotes and nested members of the same name', () => {
    const text = JSON.stringify({ params: { id: 'inner', method: 'inner' }, note: 'a "quoted" \\ "id":9', id: 'outer', method: 'm/x' });
    assert.deepEqual(topLevelValues(text, ['id', 'method']), ['outer', 'm/x']);
    assert.deepEqual(topLevelValues('{"id": 42 ,"x":{}}', ['id']), [42]);
    assert.deepEqual(topLevelValues('{"id":{"a":1},"method":"m"}', ['id', 'method']), [undefined, 'm']);
    assert.deepEqual(topLevelValues('{"x":1}', ['id', 'method']), [undefined, undefined]);
    // A repeated key neither replaces its first value nor stops the pass before the other key.
    assert.deepEqual(topLevelValues('{"id":1,"id":2,"method":"m"}', ['id', 'method']), [1, 'm']);
  });
});
