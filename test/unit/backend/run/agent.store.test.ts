import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Backend } from '../../../../src/backend';
import { createBackend } from '../../../../src/backend';
import { TestClient } from '../../../support/backend-client';
import type { FakeOpenAI } from '../../../support/fake-openai';
import { startFakeOpenAI } from '../../../support/fake-openai';

const TOKEN = 'store-token-0123456789abcdef';

describe('backend agent: threads saved in the data folder survive a backend restart', () => {
  let dir: string;
  let fake: FakeOpenAI;
  const open: { backend: Backend; client: TestClient }[] = [];

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ct-agent-store-'));
    fake = await startFakeOpenAI();
  });
  afterEach(async () => {
    for (const o of open.splice(0)) {
      await o.client.drop();
      await o.backend.close();
    }
    await fake.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function start(): Promise<TestClient> {
    const backend = await createBackend({ token: TOKEN, dataDir: path.join(dir, 'conversations'), model: { baseURL: fake.baseURL, model: 'gpt-test', apiKey: 'sk-test', maxRetries: 0 } });
    const { client } = await TestClient.open(backend.url, TOKEN);
    open.push({ backend, client });
    return client;
  }

  async function stop(): Promise<void> {
    const o = open.pop();
    assert.ok(o);
    await o.client.drop();
    await o.backend.close();
  }

  it('a follow-up on the same thread id after a restart reaches the model with the earlier turns, tool call and result included', async function () {
    this.timeout(30_000);
    let client = await start();
    fake.enqueue({ toolCalls: [{ name: 'get_current_time', id: 'call_time' }] }, { text: 'Noted: the secret word is PELICAN.' });
    const first = await client.run('thread-A', 'Remember the word PELICAN.');
    assert.equal(first.finished.reason, 'completed');
    await stop();

    client = await start();
    fake.enqueue({ text: 'It was PELICAN.' });
    const second = await client.run('thread-A', 'Which word did I ask you to remember?');
    assert.equal(second.finished.reason, 'completed');
    const body = fake.requests[fake.requests.length - 1].body;
    assert.deepEqual(body.messages.map((m) => m.role), ['system', 'user', 'assistant', 'tool', 'assistant', 'user']);
    assert.equal(body.messages[1].content, 'Remember the word PELICAN.');
    assert.equal(body.messages[2].tool_calls?.[0].function.name, 'get_current_time');
    assert.equal(body.messages[3].tool_call_id, body.messages[2].tool_calls?.[0].id);
    assert.equal(body.messages[4].content, 'Noted: the secret word is PELICAN.');
    assert.equal(body.messages[5].content, 'Which word did I ask you to remember?');
  });

  it('keeps the folder 0700 and its files 0600; resetThread deletes the thread, so a restarted backend starts it empty', async function () {
    this.timeout(30_000);
    let client = await start();
    fake.enqueue({ text: 'one' });
    await client.run('thread-B', 'first words');
    const data = path.join(dir, 'conversations');
    if (process.platform !== 'win32') {
      assert.equal(fs.statSync(data).mode & 0o777, 0o700);
      const files = fs.readdirSync(path.join(data, 'threads'));
      assert.equal(files.length, 1);
      assert.equal(fs.statSync(path.join(data, 'threads', files[0])).mode & 0o777, 0o600);
    }
    client.send({ type: 'resetThread', threadId: 'thread-B' });
    await client.next('toolGroupState', (m) => m.threadId === 'thread-B');
    await stop();
    assert.deepEqual(fs.readdirSync(path.join(data, 'threads')), []);

    client = await start();
    fake.enqueue({ text: 'fresh' });
    await client.run('thread-B', 'second words');
    assert.deepEqual(fake.requests[fake.requests.length - 1].body.messages.map((m) => m.role), ['system', 'user']);
  });
});
