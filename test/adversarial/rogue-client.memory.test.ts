/**
 * A rogue client tries to grow the real backend's memory without bound: it stops reading while
 * asking for large answers (each tiny `resetThread` is answered with the session's whole tool-group
 * state), and it keeps a dead connection "alive" with pongs nobody asked for. The backend closes
 * such a connection with SLOW_CONSUMER past its output cap, or terminates it for missing heartbeats,
 * and treats it as a disconnect: the session waits for a resume and loses nothing. And it answers
 * tool calls with huge results, which the thread's history keeps only as excerpts within its budget.
 */
import * as assert from 'node:assert/strict';
import type { ChatModel, ModelChunk, ModelRequest } from '../../src/backend/model/chatModel';
import { ErrorCode, type ToolGroupDefinition } from '../../src/protocol';
import { delay, helloMessage, TestClient } from '../support/backend-client';
import { startBackend, TOKEN, type BackendRig } from './support/backend-rig';
import { until } from './support/core-rig';
import { encodeFrame, Opcode, rawUpgrade, upgradeHeaders } from './support/raw-ws';

const OUTPUT_CAP = 8 * 1024 * 1024;

/** Groups whose state is about 0.7 MB: the answer to every resetThread. */
function bulkyGroups(): ToolGroupDefinition[] {
  return Array.from({ length: 12 }, (_, g) => ({
    name: `Bulk${g}`,
    description: 'd'.repeat(10_000),
    tools: Array.from({ length: 512 }, (_, t) => ({ name: `bulk_${g}_tool_${t}_${'x'.repeat(40)}`, description: 't', parameters: { type: 'object' } })),
  }));
}

function pausedSocket(client: TestClient): { pause(): void } {
  return (client.ws as unknown as { _socket: { pause(): void } })._socket;
}

describe('rogue client: memory', () => {
  let rig: BackendRig;

  afterEach(() => rig.closeAlive());

  it('T-MEM-01 a client that stops reading is closed with SLOW_CONSUMER once its unsent output passes the cap; its session waits for a resume', async () => {
    rig = await startBackend({ maxBufferedBytes: OUTPUT_CAP, disconnectStrategy: 'failFast' });
    const disconnects: string[] = [];
    rig.backend.on('disconnect', (e) => disconnects.push(e.sessionId));
    const rogue = await rig.open({ toolGroups: bulkyGroups() });
    const { sessionId, resumeSecret } = rogue.all('welcome')[0];
    // A call in flight that the client never answers: it must follow the disconnection strategy.
    const call = rig.backend.invokeClientTool(sessionId, 'bulk_0_tool_0_' + 'x'.repeat(40), {});
    await rogue.next('clientToolInvokeRequest');
    pausedSocket(rogue).pause();
    // What the session still produces once the drop is decided: requests still arriving on the
    // closing socket must not be served (into its resume buffer).
    let servedAfterDrop = 0;
    rig.backend.on('toolGroupState', () => {
      if (rig.logs.some((l) => l.includes(ErrorCode.SlowConsumer))) servedAfterDrop++;
    });
    const before = process.memoryUsage().rss;
    // 300 × ~0.7 MB of answers: about 200 MB queued for a peer that reads nothing, without the cap.
    for (let i = 0; i < 300 && disconnects.length === 0; i++) {
      rogue.send({ type: 'resetThread', threadId: `t${i}` });
      if (i % 20 === 19) await delay(1);
    }
    await until(() => disconnects.length > 0, 'the slow consumer dropped', 20_000);
    assert.deepEqual(disconnects, [sessionId]);
    assert.ok(rig.logs.some((l) => l.startsWith('warn') && l.includes(ErrorCode.SlowConsumer)), 'the drop is logged with SLOW_CONSUMER');
    assert.equal(servedAfterDrop, 0, 'requests on the closing connection were still served');
    const ended = await call;
    assert.equal(ended.errorCode, ErrorCode.Disconnected, 'the call in flight followed failFast');
    // Generous: the cap is 8 MiB; what stays must be far below the 200 MB the flood asked for.
    const grown = process.memoryUsage().rss - before;
    assert.ok(grown < 160 * 1024 * 1024, `RSS grew by ${Math.round(grown / 1024 / 1024)} MB`);

    const back = await TestClient.connect(rig.backend.url, TOKEN);
    rig.clients.push(back);
    const welcome = await back.hello({ resumeSession: sessionId, resumeSecret });
    assert.equal(welcome.resumed, true);
  });

  it('T-MEM-02 the cap closes the connection with close code 4009 when the client reads again', async () => {
    rig = await startBackend({ maxBufferedBytes: OUTPUT_CAP });
    const rogue = await rig.open({ toolGroups: bulkyGroups() });
    const socket = pausedSocket(rogue) as { pause(): void; resume(): void };
    socket.pause();
    for (let i = 0; i < 300 && !rig.logs.some((l) => l.includes(ErrorCode.SlowConsumer)); i++) {
      rogue.send({ type: 'resetThread', threadId: `t${i}` });
      if (i % 20 === 19) await delay(1);
    }
    socket.resume();
    const closed = await rogue.closed;
    // Within a second of the decision the socket is dropped even if the frame did not get through.
    assert.ok(closed.code === 4009 || closed.code === 1006, `close code ${closed.code}`);
  });

  it('T-MEM-03 unsolicited pongs do not keep a client that never reads alive: it is terminated for missing heartbeats', async () => {
    rig = await startBackend({ heartbeatMs: 200 });
    const disconnects: string[] = [];
    rig.backend.on('disconnect', (e) => disconnects.push(e.sessionId));
    const r = await rawUpgrade(rig.backend.port, upgradeHeaders(rig.backend.port, TOKEN));
    assert.equal(r.status, 101);
    r.socket.write(encodeFrame({ opcode: Opcode.text, payload: JSON.stringify(helloMessage()), mask: true }));
    await until(() => r.parser.texts().some((t) => t.includes('"welcome"')), 'welcome');
    // From now on it reads nothing (so it never sees a ping) and sends pongs of its own every 50 ms,
    // with an empty payload and with guessed ones.
    r.socket.pause();
    const pongs = setInterval(() => {
      r.socket.write(encodeFrame({ opcode: Opcode.pong, mask: true }));
      r.socket.write(encodeFrame({ opcode: Opcode.pong, payload: Buffer.alloc(16), mask: true }));
    }, 50);
    try {
      // Generous: two missed heartbeats take 0.4 to 0.6 s; before, it stayed for ever.
      await until(() => disconnects.length > 0, 'terminated for missed heartbeats', 8_000);
    } finally {
      clearInterval(pongs);
      r.socket.destroy();
    }
    assert.ok(rig.logs.some((l) => /missed two heartbeats/.test(l)));
  });

  it('T-MEM-04 a client that answers every tool call with 4 MiB cannot grow the thread history past its budget; the marker says what was left out', async () => {
    const seen: ModelRequest[] = [];
    // A model that asks for ReadFile on each of its first 12 turns, as a prompt-injected one might.
    const model: ChatModel = {
      name: 'reader',
      offline: true,
      async *stream(request: ModelRequest): AsyncIterable<ModelChunk> {
        seen.push(request);
        if (seen.length <= 12) yield { type: 'toolCall', call: { id: `c${seen.length}`, name: 'ReadFile', arguments: '{"path":"big.txt"}' } };
        else yield { type: 'text', text: 'read them all' };
      },
    };
    rig = await startBackend({ model, historyResultBytes: 32 * 1024, historyBudgetBytes: 128 * 1024 });
    const rogue = await rig.open();
    rogue.autoAnswer(() => ({ success: true, content: [{ type: 'text', text: 'x'.repeat(4 * 1024 * 1024) }] }));
    const { finished } = await rogue.run('t', 'read big.txt again and again', 60_000);
    assert.equal(finished.reason, 'completed');
    const toolTexts = (r: ModelRequest) => r.messages.flatMap((m) => (m.role === 'tool' ? m.content : [])).map((c) => (c.type === 'text' ? c.text : ''));
    for (const r of seen) {
      const bytes = toolTexts(r).reduce((n, t) => n + t.length, 0);
      // Generous: 128 KiB of budget; without it the 12th turn carried 44 MiB.
      assert.ok(bytes <= 160 * 1024, `a model request carried ${bytes} bytes of tool results`);
    }
    assert.ok(toolTexts(seen.at(-1)!).every((t) => /\[\.\.\. \d+ bytes omitted \(lines \d+ to \d+ of \d+\); the whole text is \d+ bytes \.\.\.\]/.test(t)), 'an excerpt without its marker');
  });
});
