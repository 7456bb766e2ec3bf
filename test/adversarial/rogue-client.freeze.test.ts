/**
 * A rogue client that holds the token tries to freeze the real backend (offline demo model, its
 * default without a configured model) with one chat message: text crafted so that the demo model's
 * intent parsing backtracks; or with one tool result the context budget must count (a file that is
 * a megabyte of one letter). Everything runs on the backend's one thread, so a freeze would stall
 * every session, heartbeat and new connection. While the attack is processed, a second client must
 * complete its handshake and a run within seconds (before the fixes: minutes). A hello of thousands of
 * tools is parsed in pieces, never in one stretch.
 */
import * as assert from 'node:assert/strict';
import type { ClientToolInvokeRequest } from '../../src/protocol';
import { helloMessage, TestClient } from '../support/backend-client';
import { startBackend, TOKEN, type BackendRig } from './support/backend-rig';

/** Generous: a handshake and a run take milliseconds; the frozen backend took minutes. */
const BOUND_MS = 10_000;
/** The longest chat message the protocol accepts. */
const LONGEST_MESSAGE = 100_000;
/** The longest request the demo model reads (src/backend/demo/demoIntents.ts MAX_REQUEST_CHARS). */
const LONGEST_READ = 10_000;

/** `prefix`, then `unit` repeated, then `suffix`: `length` characters. */
function crafted(prefix: string, unit: string, suffix: string, length: number): string {
  const room = length - prefix.length - suffix.length;
  return prefix + unit.repeat(Math.ceil(room / unit.length)).slice(0, room) + suffix;
}

describe('rogue client: freezing the event loop', () => {
  let rig: BackendRig;

  afterEach(() => rig.closeAlive());

  /** A second, honest client connects and opens README.md; returns how long that took. */
  async function honestRun(): Promise<number> {
    const t0 = performance.now();
    const { client } = await TestClient.open(rig.backend.url, TOKEN);
    rig.clients.push(client);
    client.autoAnswer((req: ClientToolInvokeRequest) => ({ success: true, content: [{ type: 'text', text: `Opened ${String(req.arguments.path)}` }] }));
    const { runId, finished } = await client.run('honest', 'open README.md', BOUND_MS);
    assert.equal(finished.reason, 'completed');
    assert.match(client.text(runId), /^I opened README\.md in the editor\./);
    return performance.now() - t0;
  }

  /** Sends each text on its own thread of one rogue client, without waiting. */
  async function attack(texts: string[]): Promise<TestClient> {
    const rogue = await rig.open();
    // Answers any call its messages lead to, so that every rogue run can end.
    rogue.autoAnswer(() => ({ success: true, content: [{ type: 'text', text: 'ok' }] }));
    texts.forEach((text, i) => rogue.send({ type: 'userMessage', threadId: `rogue-${i}`, text }));
    return rogue;
  }

  it('T-FREEZE-01 a 100,000-character "run" + spaces + "x" (the demo parser backtracked for minutes): another client connects and completes a run within seconds; the rogue is told its message is too long', async () => {
    rig = await startBackend();
    const rogue = await attack([crafted('run', ' ', 'x', LONGEST_MESSAGE)]);
    const ms = await honestRun();
    assert.ok(ms < BOUND_MS, `the honest client took ${ms.toFixed(0)} ms`);
    const started = await rogue.next('runStarted', (m) => m.threadId === 'rogue-0', BOUND_MS);
    const finished = await rogue.next('runFinished', (m) => m.runId === started.runId, BOUND_MS);
    assert.equal(finished.reason, 'completed');
    assert.match(rogue.text(started.runId), /^Your message is 100,000 characters long; the offline demo model reads requests of up to 10,000 characters, so I did nothing with it\./);
    assert.deepEqual(rogue.all('clientToolInvokeRequest'), []);
  });

  it('T-FREEZE-03 a tool result of 1,000,000 times one letter (the tokenizer merged it in quadratic time: most of an hour) is counted for the context budget in well under a second: another client completes a run within seconds', async () => {
    rig = await startBackend({ contextWindow: 128_000 });
    const rogue = await rig.open();
    rogue.autoAnswer(() => ({ success: true, content: [{ type: 'text', text: 'a'.repeat(1_000_000) }] }));
    rogue.send({ type: 'userMessage', threadId: 'rogue-0', text: 'read notes.txt' });
    await rogue.next('clientToolInvokeRequest', () => true, BOUND_MS);
    const ms = await honestRun();
    assert.ok(ms < BOUND_MS, `the honest client took ${ms.toFixed(0)} ms`);
    const started = await rogue.next('runStarted', (m) => m.threadId === 'rogue-0', BOUND_MS);
    const finished = await rogue.next('runFinished', (m) => m.runId === started.runId, BOUND_MS);
    assert.equal(finished.reason, 'completed');
  });

  it('T-FREEZE-02 the worst case of every demo pattern at the longest length it reads, all at once on separate threads: another client connects and completes a run within seconds; every rogue run ends', async () => {
    rig = await startBackend();
    const texts = [
      crafted('run', ' ', 'x', LONGEST_READ),
      crafted('execute the command', ' ', 'x', LONGEST_READ),
      crafted('', 'run `', '', LONGEST_READ),
      crafted('delete a', '.', "'x", LONGEST_READ),
      crafted('save a', '.', "'x", LONGEST_READ),
      crafted('open a', ')', '"x', LONGEST_READ),
      crafted('errors in ', '.', "'y", LONGEST_READ),
      crafted('find files matching ', '.', 'x', LONGEST_READ),
      crafted('show', ' warning', '', LONGEST_READ),
      crafted('show a warning saying ', '!', 'x', LONGEST_READ),
    ];
    const rogue = await attack(texts);
    const ms = await honestRun();
    assert.ok(ms < BOUND_MS, `the honest client took ${ms.toFixed(0)} ms`);
    for (let i = 0; i < texts.length; i++) {
      const started = await rogue.next('runStarted', (m) => m.threadId === `rogue-${i}`, BOUND_MS);
      const finished = await rogue.next('runFinished', (m) => m.runId === started.runId, BOUND_MS);
      assert.ok(finished.reason === 'completed' || finished.reason === 'error', `rogue-${i}: ${finished.reason}`);
    }
  });

  it('T-FREEZE-04 a hello of 16,384 distinct tools (2.4 MB; parsing it whole held the loop 60-160 ms) is parsed in pieces across turns, never whole: welcome, the tools past 1,024 refused (LIMIT_EXCEEDED), and a message sent right behind it is handled after it', async () => {
    rig = await startBackend();
    const groups = Array.from({ length: 32 }, (_, g) => ({
      name: `Many${g}`,
      description: 'Many schemas.',
      tools: Array.from({ length: 512 }, (_, j) => {
        const i = g * 512 + j;
        return { name: `T${i}`, description: 't', parameters: { type: 'object', properties: { [`p${i}`]: { type: 'string', maxLength: i } }, required: [`p${i}`] } };
      }),
    }));
    const hello = JSON.stringify(helloMessage({ toolGroups: groups }));
    assert.ok(hello.length > 2_000_000);
    const client = await TestClient.connect(rig.backend.url, TOKEN);
    rig.clients.push(client);
    client.autoAnswer((req: ClientToolInvokeRequest) => ({ success: true, content: [{ type: 'text', text: `Opened ${String(req.arguments.path)}` }] }));
    const parse = JSON.parse;
    let longest = 0;
    JSON.parse = ((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
      longest = Math.max(longest, text.length);
      return parse(text, reviver);
    }) as typeof JSON.parse;
    try {
      client.send(hello);
      client.send({ type: 'userMessage', threadId: 'right-behind', text: 'open README.md' });
      await client.next('welcome', () => true, BOUND_MS);
    } finally {
      JSON.parse = parse;
    }
    assert.ok(longest < 300 * 1024, `a JSON text of ${longest} characters was parsed whole`);
    const refused = client.all('error').filter((e) => e.code === 'LIMIT_EXCEEDED');
    assert.equal(refused.length, 30, refused.map((e) => e.message).join('\n').slice(0, 300));
    const started = await client.next('runStarted', (m) => m.threadId === 'right-behind', BOUND_MS);
    const finished = await client.next('runFinished', (m) => m.runId === started.runId, BOUND_MS);
    assert.equal(finished.reason, 'completed');
  });
});
