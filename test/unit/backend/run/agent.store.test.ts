import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { restartableBackend } from '../../../support/restartable-backend';

const TOKEN = 'store-token-0123456789abcdef';

describe('backend agent: threads saved in the data folder survive a backend restart', () => {
  const b = restartableBackend('ct-agent-store-', TOKEN);

  it('a follow-up on the same thread id after a restart reaches the model with the earlier turns, tool call and result included', async function () {
    this.timeout(30_000);
    let client = await b.start();
    b.fake.enqueue({ toolCalls: [{ name: 'get_current_time', id: 'call_time' }] }, { text: 'Noted: the secret word is PELICAN.' });
    const first = await client.run('thread-A', 'Remember the word PELICAN.');
    assert.equal(first.finished.reason, 'completed');
    await b.stop();

    client = await b.start();
    b.fake.enqueue({ text: 'It was PELICAN.' });
    const second = await client.run('thread-A', 'Which word did I ask you to remember?');
    assert.equal(second.finished.reason, 'completed');
    const body = b.fake.requests[b.fake.requests.length - 1].body;
    assert.deepEqual(body.messages.map((m) => m.role), ['system', 'user', 'assistant', 'tool', 'assistant', 'user']);
    assert.equal(body.messages[1].content, 'Remember the word PELICAN.');
    assert.equal(body.messages[2].tool_calls?.[0].function.name, 'get_current_time');
    assert.equal(body.messages[3].tool_call_id, body.messages[2].tool_calls?.[0].id);
    assert.equal(body.messages[4].content, 'Noted: the secret word is PELICAN.');
    assert.equal(body.messages[5].content, 'Which word did I ask you to remember?');
  });

  it('keeps the folder 0700 and its files 0600; resetThread deletes the thread, so a restarted backend starts it empty', async function () {
    this.timeout(30_000);
    let client = await b.start();
    b.fake.enqueue({ text: 'one' });
    await client.run('thread-B', 'first words');
    const data = path.join(b.dir, 'conversations');
    if (process.platform !== 'win32') {
      assert.equal(fs.statSync(data).mode & 0o777, 0o700);
      const files = fs.readdirSync(path.join(data, 'threads'));
      assert.equal(files.length, 1);
      assert.equal(fs.statSync(path.join(data, 'threads', files[0])).mode & 0o777, 0o600);
    }
    client.send({ type: 'resetThread', threadId: 'thread-B' });
    await client.next('toolGroupState', (m) => m.threadId === 'thread-B');
    await b.stop();
    assert.deepEqual(fs.readdirSync(path.join(data, 'threads')), []);

    client = await b.start();
    b.fake.enqueue({ text: 'fresh' });
    await client.run('thread-B', 'second words');
    assert.deepEqual(b.fake.requests[b.fake.requests.length - 1].body.messages.map((m) => m.role), ['system', 'user']);
  });
});
