import { strict as assert } from 'node:assert';
import type { Backend, ChatModel, ModelChunk } from '../../../../src/backend';
import { createBackend } from '../../../../src/backend';
import { TOKEN_HEADER } from '../../../../src/protocol';
import { TestClient, upgradeStatus } from '../../../support/backend-client';
import { httpGet, sample } from '../../../support/ops-http';

const TOKEN = 'test-token-0123456789abcdef';
const SERVICE_RESTART = 1012;

/** A model whose every answer waits for `release()`: a run in progress for as long as the test wants. */
function gatedModel(): { model: ChatModel; release(): void; asked: Promise<void> } {
  let open!: () => void;
  let asked!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const wasAsked = new Promise<void>((resolve) => (asked = resolve));
  return {
    model: {
      name: 'gated',
      offline: true,
      async *stream(): AsyncIterable<ModelChunk> {
        asked();
        await gate;
        yield { type: 'text', text: 'done' };
      },
    },
    release: open,
    asked: wasAsked,
  };
}

describe('backend graceful drain', () => {
  let backend: Backend | undefined;
  const clients: TestClient[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.drop()));
    await backend?.close();
    backend = undefined;
  });
  async function open(b: Backend): Promise<TestClient> {
    const { client } = await TestClient.open(b.url, TOKEN);
    clients.push(client);
    return client;
  }

  it('stops admitting, hands idle sessions over at once, and a busy one once its run has finished', async () => {
    const gated = gatedModel();
    const b = (backend = await createBackend({ token: TOKEN, model: gated.model, opsPort: 0 }));
    const busy = await open(b);
    const idle = await open(b);
    busy.send({ type: 'userMessage', threadId: 't1', text: 'work' });
    await busy.next('runStarted');
    await gated.asked;

    const drained = b.drain(20_000);
    // The idle editor is told to reconnect (to another replica) at once.
    assert.equal((await idle.closed).code, SERVICE_RESTART);
    // Nothing new is admitted, and the balancer's health check sees it.
    assert.equal(await upgradeStatus(b.url, { [TOKEN_HEADER]: TOKEN }), 503);
    const ready = await httpGet(b.port, '/readyz');
    assert.equal(ready.status, 503);
    assert.equal(ready.body, 'not ready: draining\n');
    assert.equal((await httpGet(b.port, '/healthz')).status, 200);
    assert.equal(sample(await b.metrics(), 'client_tools_draining'), 1);
    // The busy one keeps its connection until its run ends, then it is handed over too.
    assert.equal(busy.ws.readyState, busy.ws.OPEN);
    gated.release();
    const finished = await busy.next('runFinished');
    assert.equal(finished.reason, 'completed');
    assert.equal((await busy.closed).code, SERVICE_RESTART);
    const report = await drained;
    assert.deepEqual({ idle: report.handedOverIdle, atDeadline: report.handedOverAtDeadline, timedOut: report.timedOut }, { idle: 2, atDeadline: 0, timedOut: false });
  });

  it('hands a session over at the deadline when its run is still going', async () => {
    const gated = gatedModel();
    const b = (backend = await createBackend({ token: TOKEN, model: gated.model }));
    const busy = await open(b);
    busy.send({ type: 'userMessage', threadId: 't1', text: 'work' });
    await gated.asked;
    const report = await b.drain(300);
    assert.equal((await busy.closed).code, SERVICE_RESTART);
    assert.deepEqual({ idle: report.handedOverIdle, atDeadline: report.handedOverAtDeadline, timedOut: report.timedOut }, { idle: 0, atDeadline: 1, timedOut: true });
    gated.release();
  });

  it('returns at once with nobody connected, and a second drain() is the same drain', async () => {
    const b = (backend = await createBackend({ token: TOKEN }));
    const first = b.drain(10_000);
    assert.equal(b.drain(10), first);
    const report = await first;
    assert.equal(report.timedOut, false);
    assert.equal(report.handedOverIdle, 0);
  });
});
