/**
 * A rogue client that holds the token attacks the backend with the JSON Schemas of its tools (and
 * the arguments a model is steered into passing them): a backtracking pattern, a `$ref` fan-out,
 * `uniqueItems` on a large array, 65,536 distinct schemas in one `hello`, a schema nested 1,500
 * deep, a `$id` another session uses, an optional property named `toString`. Each gets its coded
 * error (or simply works), and a second client completes its handshake and a run while the attack
 * is in progress: the one thread that serves every session is never stalled for long.
 *
 * The attacks that go through the demo model run against the backend CLI as its own process, so
 * that a backend stalled for minutes fails the bound here instead of stalling the test too.
 */
import * as assert from 'node:assert/strict';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { ErrorCode, type Hello, type ToolGroupDefinition } from '../../src/protocol';
import { helloMessage, TestClient, type Msg } from '../support/backend-client';
import { BackendProcess, startBackend, TOKEN, type BackendRig } from './support/backend-rig';

/** A bystander's handshake and run must finish within this while an attack is in progress. */
const BYSTANDER_BOUND_MS = 10_000;

/** A group with one DeleteFile tool whose `path` has the given schema (the demo model calls it for "delete <path>"). */
function deleteGroup(path: Record<string, unknown>, extra: Record<string, unknown> = {}): ToolGroupDefinition {
  return {
    name: 'Files',
    description: 'File tools.',
    startCollapsed: false,
    tools: [{ name: 'DeleteFile', description: 'Delete a file', parameters: { type: 'object', properties: { path }, required: ['path'], ...extra } }],
  };
}

/** A second, well-behaved client connects, says hello and completes a run (the demo's help answer). */
async function bystander(url: string): Promise<number> {
  const started = Date.now();
  const { client } = await TestClient.open(url, TOKEN);
  try {
    const { finished } = await client.run('bystander', 'hello there', BYSTANDER_BOUND_MS);
    assert.equal(finished.type, 'runFinished');
    return Date.now() - started;
  } finally {
    await client.drop();
  }
}

async function assertBystanderCompletes(url: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`a second client did not complete its handshake and a run within ${BYSTANDER_BOUND_MS} ms`)), BYSTANDER_BOUND_MS);
  });
  try {
    const took = await Promise.race([bystander(url), bound]);
    assert.ok(took < BYSTANDER_BOUND_MS);
  } finally {
    clearTimeout(timer);
  }
}

async function open(url: string, hello: Partial<Hello>): Promise<TestClient> {
  const { client } = await TestClient.open(url, TOKEN, hello);
  return client;
}

function toolEnded(client: TestClient, runId: string): Promise<Msg<'toolCallEnded'>> {
  return client.next('toolCallEnded', (m) => m.runId === runId, BYSTANDER_BOUND_MS);
}

describe('rogue client: JSON Schemas that would stall or bloat the backend', function () {
  this.timeout(60_000);

  describe('against the backend CLI', () => {
    let backend: BackendProcess;
    const clients: TestClient[] = [];

    beforeEach(async () => {
      backend = await BackendProcess.start(0, TOKEN);
    });

    afterEach(async () => {
      await Promise.all(clients.splice(0).map((c) => c.drop()));
      await backend.kill();
    });

    async function attacker(hello: Partial<Hello>): Promise<TestClient> {
      const c = await open(backend.url, hello);
      clients.push(c);
      return c;
    }

    it('T-SCHEMA-01 pattern ^(a+)+$ and a 41-character argument: the call fails INVALID_ARGUMENTS at once (RE2), a second client is served meanwhile', async () => {
      const c = await attacker({ toolGroups: [deleteGroup({ type: 'string', pattern: '^(a+)+$' })] });
      c.send({ type: 'userMessage', threadId: 't', text: `delete ${'a'.repeat(40)}b` });
      const started = await c.next('runStarted', () => true, BYSTANDER_BOUND_MS);
      await assertBystanderCompletes(backend.url);
      const ended = await toolEnded(c, started.runId);
      assert.equal(ended.outcome, 'failed');
      assert.match(ended.errorMessage ?? '', /Invalid arguments for DeleteFile: "path" must match pattern "\^\(a\+\)\+\$"/);
    });

    it('T-SCHEMA-02 a 2 KB $ref fan-out (2^34 steps per call) is refused with LIMIT_EXCEEDED naming "$ref expansion"; the run and a second client go on', async () => {
      const $defs: Record<string, unknown> = { d0: { type: 'string' } };
      for (let i = 1; i <= 34; i++) $defs[`d${i}`] = { allOf: [{ $ref: `#/$defs/d${i - 1}` }, { $ref: `#/$defs/d${i - 1}` }] };
      const c = await attacker({ toolGroups: [deleteGroup({ $ref: '#/$defs/d34' }, { $defs })] });
      const error = await c.next('error', () => true, BYSTANDER_BOUND_MS);
      assert.equal(error.code, ErrorCode.LimitExceeded);
      assert.match(error.message, /Tool "DeleteFile" \(group "Files"\) was not registered: .*"\$ref expansion" is 1000/);
      c.send({ type: 'userMessage', threadId: 't', text: 'delete notes.txt' });
      const started = await c.next('runStarted', () => true, BYSTANDER_BOUND_MS);
      await assertBystanderCompletes(backend.url);
      await c.next('runFinished', (m) => m.runId === started.runId, BYSTANDER_BOUND_MS);
      assert.equal(c.all('clientToolInvokeRequest').length, 0, 'a refused tool was called');
    });

    it('T-SCHEMA-04 a hello with 65,536 distinct schemas: 1,024 tools registered, the rest refused with LIMIT_EXCEEDED per group ("tools per session"); a second client is served meanwhile', async () => {
      const toolGroups: ToolGroupDefinition[] = Array.from({ length: 128 }, (_, g) => ({
        name: `G${g}`,
        description: '',
        tools: Array.from({ length: 512 }, (_, t) => ({ name: `T${g}_${t}`, description: '', parameters: { type: 'object', properties: { [`p${t}`]: { type: 'string', pattern: `^x${g}_${t}$`, maxLength: g * 512 + t } } } })),
      }));
      const c = await TestClient.connect(backend.url, TOKEN);
      clients.push(c);
      c.send(helloMessage({ toolGroups }));
      await Promise.all([c.next('welcome', () => true, BYSTANDER_BOUND_MS), assertBystanderCompletes(backend.url)]);
      const state = await c.next('toolGroupState', () => true, BYSTANDER_BOUND_MS);
      assert.equal(state.groups.reduce((n, g) => n + g.tools.length, 0), 1024);
      const errors = c.all('error');
      assert.equal(errors.length, 126);
      for (const e of errors) {
        assert.equal(e.code, ErrorCode.LimitExceeded);
        assert.match(e.message, /not registered: a session may have at most 1024 tools \(limit "tools per session"\)/);
      }
    });

    it('T-SCHEMA-05 a schema nested 1,500 deep is refused with LIMIT_EXCEEDED ("schema depth"); the session is whole and usable, and a second client is served', async () => {
      let deep: Record<string, unknown> = { type: 'string' };
      for (let i = 0; i < 1_500; i++) deep = { type: 'object', properties: { a: deep } };
      const c = await attacker({ toolGroups: [deleteGroup(deep)] });
      const error = await c.next('error', () => true, BYSTANDER_BOUND_MS);
      assert.equal(error.code, ErrorCode.LimitExceeded);
      assert.match(error.message, /"schema depth" is 64/);
      await c.next('toolGroupState', () => true, BYSTANDER_BOUND_MS);
      const [run] = await Promise.all([c.run('t', 'hello there', BYSTANDER_BOUND_MS), assertBystanderCompletes(backend.url)]);
      assert.equal(run.finished.type, 'runFinished');
    });

    it('T-SCHEMA-06 a $id used in one session does not block it in another: both sessions register and call their own tool', async () => {
      const $id = 'https://tools.example/delete.json';
      const a = await attacker({ toolGroups: [deleteGroup({ type: 'string', maxLength: 3 }, { $id })] });
      a.send({ type: 'userMessage', threadId: 't', text: 'delete abcdef' });
      const refused = await toolEnded(a, (await a.next('runStarted')).runId);
      assert.match(refused.errorMessage ?? '', /"path" must NOT have more than 3 characters/);
      const b = await attacker({ toolGroups: [deleteGroup({ type: 'string', minLength: 1 }, { $id })] });
      b.send({ type: 'userMessage', threadId: 't', text: 'delete abcdef' });
      const req = await b.next('clientToolInvokeRequest', () => true, BYSTANDER_BOUND_MS);
      assert.deepEqual(req.arguments, { path: 'abcdef' });
      assert.equal(b.all('error').length, 0, JSON.stringify(b.all('error')));
      await assertBystanderCompletes(backend.url);
    });

    it('T-SCHEMA-07 optional properties named toString and constructor can be left out: the call reaches the client with just its path', async () => {
      const c = await attacker({ toolGroups: [deleteGroup({ type: 'string' }, { properties: { path: { type: 'string' }, toString: { type: 'string' }, constructor: { type: 'boolean' } }, additionalProperties: false })] });
      c.send({ type: 'userMessage', threadId: 't', text: 'delete notes.txt' });
      const req = await c.next('clientToolInvokeRequest', () => true, BYSTANDER_BOUND_MS);
      assert.deepEqual(req.arguments, { path: 'notes.txt' });
      await assertBystanderCompletes(backend.url);
    });
  });

  describe('against the backend library', () => {
    let rig: BackendRig;

    afterEach(() => rig.closeAlive());

    it('T-SCHEMA-03 uniqueItems on 50,000 distinct objects is checked in linear time: a second client is served while the call is validated', async () => {
      rig = await startBackend();
      const group: ToolGroupDefinition = { name: 'Tags', description: '', tools: [{ name: 'Tag', description: '', parameters: { type: 'object', properties: { list: { type: 'array', uniqueItems: true } } } }] };
      const c = await rig.open({ toolGroups: [group] });
      c.autoAnswer(() => ({ success: true, content: [{ type: 'text', text: 'tagged' }] }));
      const sessionId = c.all('welcome')[0].sessionId;
      const list = Array.from({ length: 50_000 }, (_, i) => ({ id: i, name: `item ${i}` }));
      // The bystander is mid-handshake when the call is validated: a quadratic check would hold it for minutes.
      const served = assertBystanderCompletes(rig.backend.url);
      const result = await rig.backend.invokeClientTool(sessionId, 'Tag', { list });
      await served;
      assert.equal(result.outcome, 'succeeded');
      const duplicate = await rig.backend.invokeClientTool(sessionId, 'Tag', { list: [...list.slice(0, 100), { name: 'item 7', id: 7 }] });
      assert.equal(duplicate.outcome, 'failed');
      assert.equal(duplicate.errorCode, ErrorCode.InvalidArguments);
      assert.match(duplicate.errorMessage ?? '', /"list" must NOT have duplicate items \(items ## 7 and 100 are identical\)/);
    });

    it('T-SCHEMA-10 schemas go with their session: two sessions of 512 distinct schemas each, every one compiled by a call, leave the heap as it was once they end', async function () {
      this.timeout(120_000);
      rig = await startBackend({ sessionGraceMs: 50 });
      v8.setFlagsFromString('--expose-gc');
      const gc = vm.runInNewContext('gc') as () => void;
      let ended = 0;
      rig.backend.on('sessionEnded', () => ended++);
      const sessionThatCallsEveryTool = async (label: string, tools: number) => {
        const toolGroups = Array.from({ length: tools / 256 }, (_, g) => ({
          name: `G${g}`,
          description: '',
          tools: Array.from({ length: 256 }, (_, i) => ({ name: `T${g}_${i}`, description: '', parameters: { type: 'object', properties: { [`p${i}`]: { type: 'string', pattern: `^${label}_${g}_${i}$` }, n: { type: 'integer' } } } })),
        }));
        const { client, welcome } = await TestClient.open(rig.backend.url, TOKEN, { toolGroups });
        client.autoAnswer(() => ({ success: true, content: [] }));
        for (const g of toolGroups) {
          for (const t of g.tools) assert.equal((await rig.backend.invokeClientTool(welcome.sessionId, t.name, { n: '1' })).outcome, 'succeeded');
        }
        const before = ended;
        await client.close();
        while (ended === before) await new Promise((r) => setTimeout(r, 20));
      };
      await sessionThatCallsEveryTool('warm-up', 256);
      gc();
      const heapBefore = process.memoryUsage().heapUsed;
      await sessionThatCallsEveryTool('a', 512);
      await sessionThatCallsEveryTool('b', 512);
      gc();
      const kept = process.memoryUsage().heapUsed - heapBefore;
      // The old process-wide ajv kept every schema it compiled: 18.5 MB per 2,048.
      assert.ok(kept < 3 * 1024 * 1024, `the heap kept ${(kept / 1024 / 1024).toFixed(1)} MB after both sessions ended`);
    });
  });
});
