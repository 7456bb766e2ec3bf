/**
 * A rogue ACP agent that floods the client or sends messages costly to check (found by the fuzzer's
 * entries for agents, test/fuzz/entries/agentToAcpClient.ts and agentSequences.ts): the SDK parses,
 * checks and dispatches what it has read in one run of microtasks, and its schema check of an object
 * of 100,000 members took seconds, both holding the event loop (in the editor, the extension host
 * every extension shares). The connection reads the agent's output a line at a time, checks each
 * line's structure before the SDK sees it and turns the loop between slices (src/agents/agentLines.ts).
 */
import * as assert from 'node:assert/strict';
import type { RunEvent } from '../../src/protocol';
import { startAcpHarness, type AcpHarness } from '../support/agents/acp-harness';
import { longestGap } from '../support/eventLoop';

const line = (message: unknown) => `${JSON.stringify(message)}\n`;
const manyKeys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
const of = <T extends RunEvent['type']>(events: RunEvent[], type: T) => events.filter((e): e is Extract<RunEvent, { type: T }> => e.type === type);

/** Resolves once `test` holds, polling; fails after `ms`. */
async function eventually(test: () => boolean, ms: number, what: string): Promise<void> {
  const until = Date.now() + ms;
  while (!test()) {
    if (Date.now() > until) assert.fail(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('rogue agent: floods and costly messages', () => {
  let h: AcpHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('T-ACP-20: 20,000 updates and 200 requests written at once never hold the event loop for long; the turn ends and every request is answered', async function () {
    this.timeout(60_000);
    const updates = Array.from({ length: 20_000 }, (_, i) => line({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 'session-1', update: { sessionUpdate: i % 2 ? 'tool_call_update' : 'tool_call', toolCallId: `c${i >> 1}`, title: 'Read', kind: 'read', status: i % 2 ? 'completed' : 'pending' } } }));
    // Requests naming a session this connection did not open: each answered SESSION_UNKNOWN, no prompt.
    const requests = Array.from({ length: 200 }, (_, i) => line({ jsonrpc: '2.0', id: `flood-${i}`, method: 'fs/read_text_file', params: { sessionId: 'session-other', path: '/x' } }));
    const flood = updates.map((u, i) => (i % 100 === 0 ? requests[i / 100] + u : u)).join('');
    // One write of every line: the whole backlog is there before the client has handled the first.
    h = await startAcpHarness({ files: { 'a.txt': 'a\n' }, script: { logWire: true, turns: [[], [{ raw: flood }, { sleep: 200 }]] } });
    await h.prompt('first');
    const gap = await longestGap(() => (h as AcpHarness).prompt('flood'));
    assert.equal(of(h.events, 'runFinished').at(-1)?.reason, 'completed');
    const answers = () => (h as AcpHarness).agentLog().filter((e) => e.wire === 'answer' && String(e.id).startsWith('flood-'));
    await eventually(() => answers().length === 200, 10_000, `200 answers, got ${answers().length}`);
    assert.ok(answers().every((a) => a.code === 'SESSION_UNKNOWN'));
    // A line at a time with turns between slices the loop turns every few milliseconds (tens on a loaded machine); all at once it waited about a second.
    assert.ok(gap < 250, `the event loop waited ${Math.round(gap)} ms at once`);
  });

  it('T-ACP-21: a message with an object of 100,000 members is refused before the SDK parses it: a request answered MESSAGE_TOO_LARGE, an update dropped, an answer fails its turn; the session goes on', async function () {
    this.timeout(60_000);
    const costly = [
      line({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 'session-1', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'dropped' }, _meta: manyKeys(100_000) } } }),
      line({ jsonrpc: '2.0', id: 'big-1', method: 'fs/read_text_file', params: { sessionId: 'session-1', path: '__CWD__/a.txt', _meta: manyKeys(100_000) } }),
    ].join('');
    h = await startAcpHarness({ files: { 'a.txt': 'a\n' }, script: { logWire: true, turns: [
      [{ raw: costly }, { update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'after' } } }],
      [{ answerMeta: 100_000 }],
      [{ update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'still here' } } }],
    ] } });
    const gap = await longestGap(() => (h as AcpHarness).prompt('costly'));
    assert.equal(of(h.events, 'runFinished').at(-1)?.reason, 'completed');
    const text = () => of((h as AcpHarness).events, 'textDelta').map((e) => JSON.stringify(e)).join('');
    assert.match(text(), /after/);
    assert.doesNotMatch(text(), /dropped/);
    await eventually(() => (h as AcpHarness).agentLog().some((e) => e.wire === 'answer' && e.id === 'big-1'), 10_000, 'the answer to big-1');
    assert.equal(h.agentLog().find((e) => e.wire === 'answer' && e.id === 'big-1')?.code, 'MESSAGE_TOO_LARGE');
    assert.equal(h.ws.host.prompts.length, 0, 'nothing asked for a refused request');
    // The agent's answer to a turn, with such an object: that turn fails with the code, the next one runs.
    await h.prompt('costly answer');
    assert.equal(of(h.events, 'runError').at(-1)?.code, 'MESSAGE_TOO_LARGE');
    await h.prompt('again');
    assert.equal(of(h.events, 'runFinished').at(-1)?.reason, 'completed');
    assert.match(text(), /still here/);
    // Logged once per connection, however many lines were refused.
    assert.equal(h.logger.entries.filter((e) => e.message === 'agent message refused').length, 1);
    // Scanned, not parsed: the SDK's check of 100,000 members held the loop about 2 s.
    assert.ok(gap < 250, `the event loop waited ${Math.round(gap)} ms at once`);
  });
});
