/**
 * Answers docs/PROTOCOL.md gives to issue 14's "had to guess" list that no other test pins down,
 * checked against the real backend on a loopback socket (and its pure tool state): an invalid hello
 * leaves the handshake open, a bad clientToolProgress leaves the call pending, a late answer after a
 * cancel gets UNKNOWN_REQUEST, container names and descriptions, and what follows a resumed welcome.
 */
import { strict as assert } from 'node:assert';
import type { Backend } from '../../../src/backend';
import { createBackend } from '../../../src/backend';
import { admitGroups } from '../../../src/backend/toolset/registration';
import { ClientToolState } from '../../../src/backend/toolset/toolState';
import { ErrorCode, toFunctionName } from '../../../src/protocol';
import type { ToolGroupDefinition } from '../../../src/protocol';
import { TestClient } from '../../support/backend-client';

const TOKEN = 'test-token-0123456789abcdef';
const EMPTY = { type: 'object', properties: {} };

function group(name: string, tools: string[], description = 'Things.'): ToolGroupDefinition {
  return { name, description, tools: tools.map((t) => ({ name: t, description: t, parameters: EMPTY })) };
}

describe('docs/PROTOCOL.md: answers checked against the reference backend', () => {
  let backend: Backend;
  const clients: TestClient[] = [];
  beforeEach(async () => {
    backend = await createBackend({ token: TOKEN, invokeTimeoutMs: 30_000 });
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.drop()));
    await backend.close();
  });
  async function connect(): Promise<TestClient> {
    const c = await TestClient.connect(backend.url, TOKEN);
    clients.push(c);
    return c;
  }

  it('an invalid hello gets an error and leaves the connection open: a valid hello may follow', async () => {
    const c = await connect();
    c.send(JSON.stringify({ type: 'hello', protocol: 'client-tools/1' }));
    const error = await c.next('error');
    assert.equal(error.code, ErrorCode.InvalidMessage);
    const welcome = await c.hello();
    assert.equal(welcome.resumed, false);
    assert.ok(welcome.sessionId.length > 0);
  });

  it('a bad clientToolProgress gets an error with relatedId and leaves the call pending; the real answer still settles it', async () => {
    const c = await connect();
    const welcome = await c.hello();
    const result = backend.invokeClientTool(welcome.sessionId, 'ReadFile', { path: 'a.txt' });
    const request = await c.next('clientToolInvokeRequest');
    c.send(JSON.stringify({ type: 'clientToolProgress', requestId: request.requestId, status: 'almost-done' }));
    const error = await c.next('error');
    assert.deepEqual([error.code, error.relatedId], [ErrorCode.InvalidMessage, request.requestId]);
    c.respond(request.requestId, { success: true, content: [{ type: 'text', text: 'hello' }] });
    const settled = await result;
    assert.equal(settled.outcome, 'succeeded');
  });

  it('a cancelled call is settled at once; the extension\'s later CANCELLED answer gets UNKNOWN_REQUEST and changes nothing', async () => {
    const c = await connect();
    const welcome = await c.hello();
    const abort = new AbortController();
    const result = backend.invokeClientTool(welcome.sessionId, 'ReadFile', { path: 'a.txt' }, { signal: abort.signal });
    const request = await c.next('clientToolInvokeRequest');
    abort.abort();
    assert.equal((await c.next('clientToolCancel')).requestId, request.requestId);
    assert.equal((await result).outcome, 'cancelled', 'settled before any answer');
    c.respond(request.requestId, { success: false, content: [{ type: 'text', text: 'cancelled' }], errorCode: ErrorCode.Cancelled, errorMessage: 'cancelled' });
    const error = await c.next('error');
    assert.deepEqual([error.code, error.relatedId], [ErrorCode.UnknownRequest, request.requestId]);
  });

  it('after a resumed welcome: a toolGroupState per kept thread, then the session\'s', async () => {
    const first = await connect();
    const welcome = await first.hello();
    await first.run('thread-a', 'hello');
    await first.drop();
    const again = await connect();
    const resumed = await again.hello({ resumeSession: welcome.sessionId, resumeSecret: welcome.resumeSecret });
    assert.equal(resumed.resumed, true);
    await again.next('toolGroupState', (m) => m.threadId === undefined);
    const states = again.all('toolGroupState').map((m) => m.threadId ?? '(session)');
    assert.deepEqual(states, ['thread-a', '(session)']);
  });
});

describe('docs/PROTOCOL.md: container names and descriptions', () => {
  const options = { collapsing: true, instructions: '' };
  const containerOf = (state: ClientToolState, name: string) => state.snapshot().groups.find((g) => g.name === name)!.containerName;

  it('keeps a name that is a function name; replaces other characters per UTF-16 unit and adds a digest; refuses a taken name (NAME_TAKEN)', () => {
    const admitted = admitGroups([group('Web Search', ['Fetch']), group('Web_Search', ['Get']), group('web_search', ['Find']), group('ReadFile', ['ReadFile']), group('Bücher 📚', ['Lend']), group('Files', ['Read'])], new Set(['web_search']));
    assert.deepEqual(admitted.problems.map((p) => [p.code, p.group]), [[ErrorCode.NameTaken, 'web_search'], [ErrorCode.NameTaken, 'ReadFile']], 'a server tool\'s name, the group\'s own tool name');
    const state = new ClientToolState(options, admitted.groups);
    assert.equal(containerOf(state, 'Files'), 'Files');
    assert.equal(containerOf(state, 'Web_Search'), 'Web_Search');
    assert.match(containerOf(state, 'Web Search'), /^Web_Search_[0-9a-f]{12}$/, 'a digest keeps it apart from Web_Search');
    assert.match(containerOf(state, 'Bücher 📚'), /^B_cher____[0-9a-f]{12}$/);
    assert.equal(containerOf(state, 'Bücher 📚'), toFunctionName('Bücher 📚'), 'one rule, in src/protocol/functionNames.ts');
  });

  it('cuts a changed name to 51 characters before the digest; a 64-character function name stays', () => {
    const long = 'A'.repeat(64);
    const state = new ClientToolState(options, [group(long, ['X']), group(`${long.slice(0, 63)}!`, ['Y']), group('A'.repeat(65), ['Z'])]);
    assert.equal(containerOf(state, long), long);
    assert.match(containerOf(state, `${'A'.repeat(63)}!`), new RegExp(`^${'A'.repeat(51)}_[0-9a-f]{12}$`));
    assert.match(containerOf(state, 'A'.repeat(65)), new RegExp(`^${'A'.repeat(51)}_[0-9a-f]{12}$`));
    assert.notEqual(containerOf(state, 'A'.repeat(65)), containerOf(state, `${'A'.repeat(63)}!`));
  });

  it('describes a collapsed group exactly as the page says', () => {
    const state = new ClientToolState(options, [group('Files', ['ReadFile', 'WriteFile'], 'Read and write files.'), group('One', ['Only'], '')]);
    const [files, one] = state.functions();
    assert.equal(files.description, 'Read and write files. (collapsed tool group "Files" with 2 tools: ReadFile, WriteFile). Call this function to expand the group; its tools become available on your next step.');
    assert.equal(one.description, '(collapsed tool group "One" with 1 tool: Only). Call this function to expand the group; its tools become available on your next step.');
    assert.deepEqual(state.snapshot().groups[0].tools.map((t) => t.visible), [false, false], 'tools of a collapsed group are not visible');
  });
});
