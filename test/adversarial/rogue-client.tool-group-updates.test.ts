/**
 * A rogue client that holds the token turns `updateToolGroups` into an amplifier against the real
 * backend (offline demo model, real loopback sockets): many threads, then the same large update
 * again and again (it used to be re-applied to every thread, each answered with a full
 * `toolGroupState`: 198 KB in, 166 MB out after five rounds), floods of tiny updates, updates that
 * are too big or build up too much state, and updates piled onto a run that waits. Output must stay
 * proportional to input, and every refusal is LIMIT_EXCEEDED with nothing applied.
 */
import * as assert from 'node:assert/strict';
import type { Augmentation, ToolGroupDefinition } from '../../src/protocol';
import { encode, ErrorCode } from '../../src/protocol';
import { MAX_QUEUED_UPDATES } from '../../src/backend/agent';
import { MAX_SESSION_GROUPS, STATE_INTERVAL_MS, UPDATE_BURST, UPDATES_PER_SECOND } from '../../src/backend/updateLimits';
import { delay, type TestClient } from '../support/backend-client';
import { startBackend, type BackendRig } from './support/backend-rig';
import { until } from './support/core-rig';

/** A group of `tools` tools, each with a description and a small schema, about 2.5 KB per tool. */
function group(name: string, tools = 8): ToolGroupDefinition {
  return {
    name,
    description: `Injected group ${name}. `.repeat(10),
    tools: Array.from({ length: tools }, (_, i) => ({
      name: `${name}_tool_${i}`,
      description: `Does thing ${i} of ${name}. `.repeat(100),
      parameters: { type: 'object', properties: { path: { type: 'string', description: 'a path' }, count: { type: 'integer' } } },
    })),
  };
}

function bytesOf(aug: Augmentation): number {
  const frame = encode({ type: 'updateToolGroups', augmentation: aug });
  return typeof frame.data === 'string' ? Buffer.byteLength(frame.data) : frame.data.length;
}

/** Counts the bytes of every message the client receives from now on. */
function countBytesIn(client: TestClient): () => number {
  let total = 0;
  client.ws.on('message', (data: Buffer) => (total += data.length));
  return () => total;
}

describe('rogue client: tool-group update storms', () => {
  let rig: BackendRig;

  afterEach(() => rig.closeAlive());

  it('T-UPD-01 the same 40 KB update five times over 100 threads: the bytes sent back stay below the bytes received (one toolGroupState per update, not one per thread), and each thread still gets the update at its next run', async () => {
    // 100 threads started at once: room for their runs (RUN_LIMIT has its own tests).
    rig = await startBackend({ maxRunsPerSession: 100 });
    const c = await rig.open();
    for (let i = 0; i < 100; i++) c.send({ type: 'userMessage', threadId: `t${i}`, text: 'hello' });
    await until(() => c.all('runFinished').length === 100, '100 runs', 20_000);
    await delay(200);

    const aug: Augmentation = { injectGroups: Array.from({ length: 2 }, (_, i) => group(`Storm${i}`)) };
    const perUpdate = bytesOf(aug);
    assert.ok(perUpdate > 35_000 && perUpdate < 60_000, `${perUpdate} bytes per update`);
    const out = countBytesIn(c);
    const statesBefore = c.all('toolGroupState').length;
    for (let round = 0; round < 5; round++) {
      c.send({ type: 'updateToolGroups', augmentation: aug });
      await delay(150);
    }
    await delay(500);
    const sentIn = 5 * perUpdate;
    const states = c.all('toolGroupState').length - statesBefore;
    assert.ok(states >= 1 && states <= 5, `${states} toolGroupState messages for 5 updates`);
    assert.ok(out() < sentIn, `${out()} bytes out for ${sentIn} bytes in`);
    assert.equal(c.all('error').length, 0);

    c.send({ type: 'userMessage', threadId: 't7', text: 'hello' });
    await until(() => c.all('runFinished').length === 101, 'the run on t7');
    const threadState = c.all('toolGroupState', (m) => m.threadId === 't7').at(-1);
    assert.ok(threadState, 'no state for t7 after its run');
    assert.deepEqual(threadState.groups.map((g) => g.name), ['IDE', 'Storm0', 'Storm1']);
  });

  it(`T-UPD-02 a flood of 500 tiny updates: at most the burst (${UPDATE_BURST}) plus the refill is applied, the rest get LIMIT_EXCEEDED, and the answers are a few coalesced states`, async () => {
    rig = await startBackend();
    const c = await rig.open();
    const statesBefore = c.all('toolGroupState').length;
    const t0 = Date.now();
    for (let i = 0; i < 500; i++) c.send({ type: 'updateToolGroups', augmentation: { addContext: [{ name: `n${i}`, text: 'x' }] } });
    const appliedSoFar = () => c.all('toolGroupState').slice(statesBefore).at(-1)?.context?.length ?? 0;
    await until(() => c.all('error').length + appliedSoFar() === 500, 'every update to be applied or refused', 10_000);
    const seconds = (Date.now() - t0) / 1000;
    await delay(300);
    const refused = c.all('error');
    assert.ok(refused.every((e) => e.code === ErrorCode.LimitExceeded), refused.map((e) => e.code).join(','));
    const applied = 500 - refused.length;
    assert.equal(appliedSoFar(), applied, 'the last state has exactly the applied updates');
    assert.ok(applied >= UPDATE_BURST && applied <= UPDATE_BURST + Math.ceil(UPDATES_PER_SECOND * seconds) + 1, `${applied} applied in ${seconds} s`);
    const states = c.all('toolGroupState').length - statesBefore;
    assert.ok(states <= Math.ceil((seconds * 1000) / STATE_INTERVAL_MS) + 2, `${states} toolGroupState messages in ${seconds} s`);
  });

  it('T-UPD-03 an update over 1 MiB gets LIMIT_EXCEEDED and changes nothing; a normal one afterwards applies', async () => {
    rig = await startBackend();
    const c = await rig.open();
    const huge: Augmentation = { injectGroups: Array.from({ length: 60 }, (_, i) => group(`Huge${i}`, 8)) };
    assert.ok(bytesOf(huge) > 1024 * 1024);
    c.send({ type: 'updateToolGroups', augmentation: huge });
    const err = await c.next('error');
    assert.equal(err.code, ErrorCode.LimitExceeded);
    assert.match(err.message, /limit is 1048576/);
    c.send({ type: 'updateToolGroups', augmentation: { injectGroups: [group('Small', 1)] } });
    const state = await c.next('toolGroupState', (m) => m.threadId === undefined && m.groups.some((g) => g.name === 'Small'));
    assert.deepEqual(state.groups.map((g) => g.name), ['IDE', 'Small']);
  });

  it(`T-UPD-04 injecting ever new groups stops at ${MAX_SESSION_GROUPS} groups: the update that would pass it gets LIMIT_EXCEEDED and none of its groups`, async () => {
    rig = await startBackend();
    const c = await rig.open();
    for (let round = 0; round < 5; round++) {
      const injectGroups = Array.from({ length: 64 }, (_, i) => group(`R${round}G${i}`, 1));
      c.send({ type: 'updateToolGroups', augmentation: { injectGroups } });
      await delay(120);
    }
    const err = await c.next('error');
    assert.equal(err.code, ErrorCode.LimitExceeded);
    assert.match(err.message, /tool groups/);
    await delay(200);
    const whole = Math.floor((MAX_SESSION_GROUPS - 1) / 64);
    const state = c.all('toolGroupState', (m) => m.threadId === undefined).at(-1)!;
    assert.equal(state.groups.length, 1 + whole * 64, `IDE and ${whole} whole rounds`);
    assert.ok(!state.groups.some((g) => g.name.startsWith(`R${whole}`)), 'part of the refused round was applied');
  });

  it(`T-UPD-05 a run that waits holds at most ${MAX_QUEUED_UPDATES} updates; more get LIMIT_EXCEEDED, and the run then sees the ones it held`, async () => {
    rig = await startBackend();
    const c = await rig.open();
    c.send({ type: 'userMessage', threadId: 't1', text: 'delete notes.txt' });
    const req = await c.next('clientToolInvokeRequest');
    // Each also changes visibility, so none is context-only (those merge: T-UPD-06).
    for (let i = 0; i < MAX_QUEUED_UPDATES + 8; i++) c.send({ type: 'updateToolGroups', augmentation: { addContext: [{ name: `n${i}`, text: 'x' }], showTools: ['OpenFile'] } });
    await until(() => c.all('error').length >= 8, '8 refusals');
    await delay(200);
    assert.deepEqual(c.all('error').map((e) => e.code), Array(8).fill(ErrorCode.LimitExceeded));
    assert.match(c.all('error')[0].message, /run in progress/);
    c.respond(req.requestId, { success: true, content: [{ type: 'text', text: 'deleted' }] });
    await c.next('runFinished');
    await until(() => c.all('toolGroupState', (m) => m.threadId === 't1').length > 0, 'the thread\'s state');
    const state = c.all('toolGroupState', (m) => m.threadId === 't1').at(-1)!;
    assert.equal(state.context?.length, MAX_QUEUED_UPDATES);
  });

  it('T-UPD-06 editor-context updates pushed all through a long run never fill its queue: 60 context-only updates merge, none is refused, and the run ends with the last text of each item', async () => {
    rig = await startBackend();
    const c = await rig.open();
    c.send({ type: 'userMessage', threadId: 't1', text: 'delete notes.txt' });
    const req = await c.next('clientToolInvokeRequest');
    for (let i = 0; i < 60; i++) {
      c.send({ type: 'updateToolGroups', augmentation: { addContext: [{ name: 'Active editor', text: `file${i}.ts` }, { name: `extra${i % 3}`, text: `v${i}` }] } });
    }
    await until(() => c.all('toolGroupState', (m) => m.threadId === undefined && (m.context ?? []).some((x) => x.text === 'file59.ts')).length > 0, 'the last update');
    assert.deepEqual(c.all('error'), []);
    c.respond(req.requestId, { success: true, content: [{ type: 'text', text: 'deleted' }] });
    await c.next('runFinished');
    await until(() => c.all('toolGroupState', (m) => m.threadId === 't1').length > 0, 'the thread\'s state');
    const state = c.all('toolGroupState', (m) => m.threadId === 't1').at(-1)!;
    assert.deepEqual(state.context, [
      { name: 'Active editor', text: 'file59.ts' },
      { name: 'extra0', text: 'v57' },
      { name: 'extra1', text: 'v58' },
      { name: 'extra2', text: 'v59' },
    ]);
  });
});
