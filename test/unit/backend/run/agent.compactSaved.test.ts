import { strict as assert } from 'node:assert';
import { SUMMARY_MARK } from '../../../../src/backend/context/budget';
import { foldRecords } from '../../../../src/backend/store/conversationStore';
import type { ChatRequestBody, Script } from '../../../support/fake-openai';
import { restartableBackend } from '../../../support/restartable-backend';

const TOKEN = 'compact-token-0123456789abcdef';
const SUMMARY = 'Days 1 to 3: every build passed.';
const isSummaryRequest = (body: ChatRequestBody) => String(body.messages[0].content).startsWith('Summarise');

describe('backend agent: a compaction is saved with the thread, so a restart does not bring back what was compacted', () => {
  const b = restartableBackend('ct-compact-saved-', TOKEN, { contextWindow: 32_000 });

  it('Compact now, then a restart: the next request carries the summary and the newest turn, not the compacted turns', async function () {
    this.timeout(60_000);
    const script: Script = (request) => (isSummaryRequest(request.body) ? { text: SUMMARY } : { text: 'Answer.' });
    b.fake.enqueue(...Array.from({ length: 10 }, () => script));
    let client = await b.start();
    for (let day = 1; day <= 3; day++) await client.run('t', `What happened on day ${day}?`);
    client.send({ type: 'compactThread', threadId: 't' });
    const started = await client.next('runStarted', (m) => m.threadId === 't');
    await client.next('contextCompacted', (m) => m.runId === started.runId);
    await client.next('runFinished', (m) => m.runId === started.runId);
    const o = b.open.pop()!;
    await o.client.drop();
    await o.backend.close();

    client = await b.start();
    const next = await client.run('t', 'And day 4?');
    assert.equal(next.finished.reason, 'completed');
    const body = b.fake.requests.at(-1)!.body;
    assert.ok(String(body.messages[1].content).startsWith(SUMMARY_MARK) && String(body.messages[1].content).includes(SUMMARY), JSON.stringify(body.messages[1]));
    assert.deepEqual(body.messages.filter((m) => m.role === 'user').map((m) => String(m.content)).slice(1), ['What happened on day 3?', 'And day 4?']);
  });

  it('a historyReset record drops the messages before it when records are folded', () => {
    const thread = foldRecords('t', [
      { kind: 'message', message: { role: 'user', content: 'old' } },
      { kind: 'historyReset' },
      { kind: 'message', message: { role: 'user', content: 'summary' } },
    ]);
    assert.deepEqual(thread.messages, [{ role: 'user', content: 'summary' }]);
  });
});
