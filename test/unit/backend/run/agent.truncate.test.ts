import { strict as assert } from 'node:assert';
import { createBackend } from '../../../../src/backend';
import { foldRecords } from '../../../../src/backend/store/conversationStore';
import { ErrorCode } from '../../../../src/protocol';
import { TestClient } from '../../../support/backend-client';
import { restartableBackend } from '../../../support/restartable-backend';

const TOKEN = 'truncate-token-0123456789abcdef';
const userTexts = (body: { messages: { role: string; content?: unknown }[] }) => body.messages.filter((m) => m.role === 'user').map((m) => String(m.content));

describe('backend agent: Rewind (truncateThread) drops a run\'s user message and everything after it', () => {
  const b = restartableBackend('ct-truncate-', TOKEN);

  it('announces the capability in welcome', async () => {
    const backend = await createBackend({ token: TOKEN, model: { baseURL: b.fake.baseURL, model: 'gpt-test', apiKey: 'sk-test', maxRetries: 0 } });
    const { client, welcome } = await TestClient.open(backend.url, TOKEN);
    b.open.push({ backend, client });
    assert.deepEqual(welcome.capabilities, ['truncateThread']);
  });

  it('the next request no longer carries the dropped turns, also after a restart', async function () {
    this.timeout(30_000);
    b.fake.enqueue({ text: 'One.' }, { text: 'Two.' }, { text: 'Three.' }, { text: 'After the rewind.' }, { text: 'After the restart.' });
    let client = await b.start();
    await client.run('t', 'first');
    const second = await client.run('t', 'second');
    await client.run('t', 'third');
    client.send({ type: 'truncateThread', threadId: 't', runId: second.runId });
    const truncated = await client.next('threadTruncated', (m) => m.threadId === 't');
    assert.deepEqual(truncated, { type: 'threadTruncated', threadId: 't', runId: second.runId, messages: 4 });
    await client.run('t', 'second again');
    assert.deepEqual(userTexts(b.fake.requests.at(-1)!.body), ['first', 'second again']);
    assert.ok(!JSON.stringify(b.fake.requests.at(-1)!.body).includes('Two.'), 'the dropped answer is still sent');
    assert.ok(!JSON.stringify(b.fake.requests.at(-1)!.body).includes(second.runId), 'a run id reached the model');

    client = await b.restart();
    await client.run('t', 'after restart');
    assert.deepEqual(userTexts(b.fake.requests.at(-1)!.body), ['first', 'second again', 'after restart']);
    assert.equal(b.fake.requests.at(-1)!.body.messages.filter((m) => m.role === 'assistant').length, 2);
  });

  it('RUN_BUSY while the thread has a run; the history is untouched', async function () {
    this.timeout(30_000);
    b.fake.enqueue({ text: 'One.' }, { hang: true });
    const client = await b.start();
    const first = await client.run('t', 'first');
    client.send({ type: 'userMessage', threadId: 't', text: 'second' });
    const running = await client.next('runStarted', (m) => m.runId !== first.runId);
    client.send({ type: 'truncateThread', threadId: 't', runId: first.runId });
    const busy = await client.next('error', (m) => m.code === ErrorCode.RunBusy);
    assert.equal(busy.relatedId, 't');
    client.send({ type: 'cancel', threadId: 't', runId: running.runId });
    await client.next('runFinished', (m) => m.runId === running.runId);
    assert.equal(client.all('threadTruncated').length, 0);
    b.fake.enqueue({ text: 'Three.' });
    await client.run('t', 'third');
    assert.deepEqual(userTexts(b.fake.requests.at(-1)!.body), ['first', 'second', 'third']);
  });

  it('NOT_FOUND for an unknown thread and for a run the thread did not start', async function () {
    this.timeout(30_000);
    b.fake.enqueue({ text: 'One.' }, { text: 'Two.' });
    const client = await b.start();
    client.send({ type: 'truncateThread', threadId: 'nobody', runId: 'run_x' });
    const unknownThread = await client.next('error', (m) => m.code === ErrorCode.NotFound);
    assert.equal(unknownThread.relatedId, 'nobody');
    await client.run('t', 'first');
    client.send({ type: 'truncateThread', threadId: 't', runId: 'run_not_here' });
    const unknownRun = await client.next('error', (m) => m.code === ErrorCode.NotFound);
    assert.equal(unknownRun.relatedId, 'run_not_here');
    await client.run('t', 'second');
    assert.deepEqual(userTexts(b.fake.requests.at(-1)!.body), ['first', 'second']);
  });

  it('a user message saved without its run id (an older backend) gets it from the run record before it', () => {
    const thread = foldRecords('t', [
      { kind: 'run', run: { runId: 'run_a', status: 'started' } },
      { kind: 'message', message: { role: 'user', content: 'first' } },
      { kind: 'message', message: { role: 'assistant', content: 'One.' } },
      { kind: 'message', message: { role: 'user', content: 'a steer' } },
    ]);
    assert.deepEqual(thread.messages, [{ role: 'user', content: 'first', runId: 'run_a' }, { role: 'assistant', content: 'One.' }, { role: 'user', content: 'a steer' }]);
  });
});
