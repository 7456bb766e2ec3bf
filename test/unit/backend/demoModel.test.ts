import { strict as assert } from 'node:assert';
import type { Backend } from '../../../src/backend';
import { createBackend } from '../../../src/backend';
import { OFFLINE_NOTICE } from '../../../src/backend/demoModel';
import type { ClientToolInvokeRequest } from '../../../src/protocol';
import { TestClient } from '../../support/backend-client';

const TOKEN = 'demo-token-0123456789abcdef';
const PNG = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13]);

describe('backend offline demo model', () => {
  let backend: Backend;
  let client: TestClient;
  let declineDeletes = false;
  let thread = 0;

  beforeEach(async () => {
    declineDeletes = false;
    backend = await createBackend({ token: TOKEN });
    ({ client } = await TestClient.open(backend.url, TOKEN));
    client.autoAnswer((req: ClientToolInvokeRequest) => {
      switch (req.toolName) {
        case 'OpenFile':
          return { success: true, content: [{ type: 'text', text: `Opened ${String(req.arguments.path)}` }] };
        case 'GetSelection':
          return { success: true, content: [{ type: 'json', value: { activeEditor: true, file: 'src/a.ts', language: 'typescript', range: { startLine: 10, startColumn: 1, endLine: 10, endColumn: 19 }, text: 'const answer = 42;', isEmpty: false } }] };
        case 'ShowMessage':
          return { success: true, content: [{ type: 'text', text: 'shown' }] };
        case 'ReadFile':
          return { success: true, content: [{ type: 'binary', mimeType: 'image/png', filename: 'logo.png', bytes: PNG }] };
        case 'DeleteFile':
          return declineDeletes
            ? { success: false, content: [], errorCode: 'PERMISSION_DENIED', errorMessage: 'The user denied DeleteFile.' }
            : { success: true, content: [{ type: 'json', value: { deleted: String(req.arguments.path) } }] };
        default:
          return { success: false, content: [], errorCode: 'UNKNOWN_TOOL', errorMessage: 'no' };
      }
    });
  });

  afterEach(async () => {
    await client.drop();
    await backend.close();
  });

  /** Runs one request in a fresh thread; returns the tools called, in order, and the answer. */
  async function ask(text: string) {
    const { runId, finished } = await client.run(`t${++thread}`, text);
    assert.equal(finished.reason, 'completed');
    const called = client.all('toolCallStarted', (m) => m.runId === runId).map((m) => m.toolName);
    const requests = client.all('clientToolInvokeRequest', (m) => m.threadId === `t${thread}`);
    const deltas = client.all('textDelta', (m) => m.runId === runId).length;
    return { called, requests, answer: client.text(runId), deltas };
  }

  it('says it is the demo model in welcome', () => {
    assert.deepEqual(client.all('welcome')[0].server.model, { name: 'offline-demo', offline: true });
    assert.equal(backend.model.offline, true);
  });

  it('"open README.md": expands the IDE container, calls OpenFile, says it opened the file', async () => {
    const r = await ask('open README.md');
    assert.deepEqual(r.called, ['IDE', 'OpenFile']);
    assert.deepEqual(r.requests[0].arguments, { path: 'README.md' });
    assert.match(r.answer, /^I opened README\.md in the editor\./);
    assert.ok(r.answer.endsWith(OFFLINE_NOTICE));
    assert.ok(r.deltas >= 3, `streamed in ${r.deltas} deltas`);
  });

  it('"what did I select?": calls GetSelection and summarises the JSON it returns', async () => {
    const r = await ask('what did I select?');
    assert.deepEqual(r.called, ['IDE', 'GetSelection']);
    assert.match(r.answer, /^You selected 18 characters in src\/a\.ts from line 10:\n\n> const answer = 42;/);
  });

  it('"show a warning saying hi": calls ShowMessage with severity warning', async () => {
    const r = await ask('show a warning saying hi');
    assert.deepEqual(r.called, ['IDE', 'ShowMessage']);
    assert.deepEqual(r.requests[0].arguments, { message: 'hi', severity: 'warning' });
    assert.match(r.answer, /^I showed a warning saying "hi"\./);
  });

  it('"read logo.png": calls ReadFile and describes the binary it got', async () => {
    const r = await ask('read logo.png');
    assert.deepEqual(r.called, ['IDE', 'ReadFile']);
    assert.match(r.answer, /^logo\.png is an image\/png file of 12 bytes\./);
  });

  it('"delete notes.txt": calls DeleteFile and says the file was deleted', async () => {
    const r = await ask('delete notes.txt');
    assert.deepEqual(r.called, ['IDE', 'DeleteFile']);
    assert.deepEqual(r.requests[0].arguments, { path: 'notes.txt' });
    assert.match(r.answer, /^I deleted notes\.txt\. The tool reported deleted: "notes\.txt"\./);
  });

  it('"delete notes.txt" declined: says the user declined and nothing was deleted', async () => {
    declineDeletes = true;
    const r = await ask('delete notes.txt');
    assert.deepEqual(r.called, ['IDE', 'DeleteFile']);
    assert.match(r.answer, /^You declined, so notes\.txt was not deleted\./);
  });

  it('calls the tool directly once the group is expanded (second request in the same thread)', async () => {
    await client.run('same', 'open README.md');
    const { runId } = await client.run('same', 'read logo.png');
    assert.deepEqual(client.all('toolCallStarted', (m) => m.runId === runId).map((m) => m.toolName), ['ReadFile']);
  });

  it('answers a question sent with the editor selection by quoting the selection it received', async () => {
    client.send({ type: 'userMessage', threadId: 'ctx', text: 'What does this do?', context: { file: 'src/a.ts', language: 'typescript', selection: { startLine: 9, startCharacter: 0, endLine: 9, endCharacter: 18 }, selectedText: 'const answer = 42;' } });
    const { runId } = await client.next('runStarted', (m) => m.threadId === 'ctx');
    await client.next('runFinished', (m) => m.runId === runId);
    const answer = client.all('textDelta', (m) => m.runId === runId).map((m) => m.text).join('');
    assert.deepEqual(client.all('toolCallStarted', (m) => m.runId === runId), []);
    assert.match(answer, /^You asked "What does this do\?" about this part of your editor:/);
    assert.match(answer, /File: src\/a\.ts \(typescript\)/);
    assert.match(answer, /const answer = 42;/);
    assert.ok(answer.endsWith(OFFLINE_NOTICE));
  });

  it('answers an unknown request with the list of what it understands and how to configure a real model', async () => {
    const r = await ask('write me a sonnet');
    assert.deepEqual(r.called, []);
    for (const example of ['open README.md', 'what did I select?', 'show a warning saying hi', 'read logo.png', 'delete notes.txt']) assert.ok(r.answer.includes(example), example);
    assert.match(r.answer, /clientTools\.model\.baseUrl/);
    assert.match(r.answer, /clientTools\.model\.name/);
    assert.match(r.answer, /Client Tools: Set API Key/);
    assert.match(r.answer, /OPENAI_BASE_URL, CLIENT_TOOLS_MODEL and OPENAI_API_KEY/);
  });
});
