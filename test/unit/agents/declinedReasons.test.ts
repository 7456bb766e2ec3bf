/**
 * The user's reasons for denying an agent's own permission requests reach the agent at its turn's
 * boundary (src/agents/declinedReasons.ts, agentSession.ts): a scripted agent process over a real
 * ACP stream asks, the gate's prompt is denied with a reason, and the agent's next `session/prompt`
 * carries it; nothing is sent without a reason, and the chat shows what was sent as a card of its own.
 */
import assert from 'node:assert/strict';
import { PLAIN_LAUNCH } from '../../../src/agents/presetLaunch';
import { DeclinedReasons, declinedMessage, MAX_DECLINED_PER_MESSAGE, MAX_DECLINED_REASON_CHARS, MAX_DECLINED_SAVED, notDeliveredMessage, parseSavedDeclined, type SavedDeclined } from '../../../src/agents/declinedReasons';
import { ThreadAgents } from '../../../src/agents/threadAgents';
import type { RunEvent } from '../../../src/protocol';
import { AGENT_NAME, startAcpHarness, type AcpHarness, type LogEntry } from '../../support/agents/acp-harness';
import type { ScriptStep } from '../../support/agents/scripted-agent';

const OPTIONS = [{ optionId: 'once', name: 'Allow', kind: 'allow_once' }, { optionId: 'no', name: 'Reject', kind: 'reject_once' }];
const of = <T extends RunEvent['type']>(events: RunEvent[], type: T) => events.filter((e): e is Extract<RunEvent, { type: T }> => e.type === type);

/** A command the agent announces and asks to run. */
const askToRun = (id: string, command = 'npm test'): ScriptStep[] => [
  { update: { sessionUpdate: 'tool_call', toolCallId: id, title: `Run ${command}`, kind: 'execute', status: 'pending', rawInput: { command } } },
  { call: 'session/request_permission', params: { toolCall: { toolCallId: id }, options: OPTIONS }, as: id },
];

/** The text blocks of each session/prompt the agent received, in order. */
const promptsOf = (log: LogEntry[]): string[][] =>
  log.filter((e) => e.method === 'session/prompt').map((e) => ((e.params?.prompt ?? []) as { text?: string }[]).map((b) => b.text ?? ''));

describe('declined reasons: the user\'s reason for a Deny reaches the agent', () => {
  describe('the message', () => {
    it('is nothing without a reason: no reason, an empty one, or only spaces and line breaks', () => {
      const d = new DeclinedReasons();
      d.add('execute', undefined);
      d.add('execute', '');
      d.add('execute', ' \n\t\u200b ');
      assert.equal(d.waiting, false);
      assert.equal(d.take(), undefined);
    });

    it('names a kind the agent made up after an object\'s own keys as "use a tool", never with the key\'s value', () => {
      for (const kind of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
        assert.equal(declinedMessage([{ kind, reason: 'no' }]).split('\n')[1], 'The user declined your request to use a tool, with this reason: "no"', kind);
      }
    });

    it('says what kind of request was declined in the editor\'s words and quotes the reason on one line, then is forgotten', () => {
      const d = new DeclinedReasons();
      d.add('execute', 'use the\nclean script');
      d.add('edit', 'wrong file');
      d.add('made_up_kind', 'no');
      const message = d.take() ?? '';
      assert.equal(message, [
        'Sent by the editor, not typed by the user: the user denied permission requests of yours with a reason, which your tool result did not carry.',
        'The user declined your request to run a command, with this reason: "use the clean script"',
        'The user declined your request to change a file, with this reason: "wrong file"',
        'The user declined your request to use a tool, with this reason: "no"',
      ].join('\n'));
      assert.equal(d.take(), undefined);
    });

    it('is bounded: a reason is capped, and past the most reasons per message the oldest are counted, not quoted', () => {
      const d = new DeclinedReasons();
      d.add('execute', 'x'.repeat(10 * MAX_DECLINED_REASON_CHARS));
      for (let i = 0; i < MAX_DECLINED_PER_MESSAGE + 4; i++) d.add('read', `reason ${i}`);
      const lines = (d.take() ?? '').split('\n');
      assert.equal(lines.length, 2 + MAX_DECLINED_PER_MESSAGE);
      assert.match(lines[1] ?? '', /^\(The user declined 5 earlier requests/);
      assert.match(lines.at(-1) ?? '', /"reason 23"$/);
      assert.ok(declinedMessage([{ kind: 'execute', reason: 'x'.repeat(MAX_DECLINED_REASON_CHARS) }]).length < 2 * MAX_DECLINED_REASON_CHARS);
    });
  });

  describe('kept with the thread across a reload', () => {
    it('what is saved follows each change: a reason kept, then nothing once taken', () => {
      const changes: (SavedDeclined | undefined)[] = [];
      const d = new DeclinedReasons((saved) => changes.push(saved));
      d.add('execute', undefined);
      d.add('execute', 'not now');
      d.take();
      assert.deepEqual(changes, [{ reasons: [{ kind: 'execute', reason: 'not now' }], earlier: 0 }, undefined]);
    });

    it('is bounded: the latest few reasons, the others counted; restored, the message is the one the agent would have had', () => {
      const before = new DeclinedReasons();
      for (let i = 0; i < MAX_DECLINED_SAVED + 3; i++) before.add('read', `reason ${i}`);
      const saved = before.saved();
      assert.equal(saved?.reasons.length, MAX_DECLINED_SAVED);
      assert.equal(saved?.earlier, 3);
      const after = new DeclinedReasons();
      after.restore(parseSavedDeclined(JSON.parse(JSON.stringify(saved))) as SavedDeclined);
      const lines = (after.take() ?? '').split('\n');
      assert.equal(lines[1], '(The user declined 3 earlier requests with reasons not repeated here.)');
      assert.deepEqual(lines.slice(2), Array.from({ length: MAX_DECLINED_SAVED }, (_, i) => `The user declined your request to read a file, with this reason: "reason ${i + 3}"`));
    });

    it('a saved value is read back checked: junk is nothing, a reason is one line and capped again, a kind cut, counts bounded', () => {
      for (const junk of [undefined, null, 'x', 7, [], {}, { reasons: 'x' }, { reasons: [] }, { reasons: [{ kind: 1, reason: 'a' }, { kind: 'read' }, null, { kind: 'read', reason: ' \n ' }] }]) {
        assert.equal(parseSavedDeclined(junk), undefined, JSON.stringify(junk));
      }
      const parsed = parseSavedDeclined({
        reasons: [{ kind: 'k'.repeat(500), reason: 'line one\nline two\u202e' }, { kind: 'execute', reason: 'y'.repeat(2 * MAX_DECLINED_REASON_CHARS) }, { kind: 'execute', reason: 'z'.repeat(100 * MAX_DECLINED_REASON_CHARS) }],
        earlier: -4,
      });
      assert.equal(parsed?.reasons.length, 2, 'a reason far past the cap is not read at all');
      assert.equal(parsed?.reasons[0]?.reason, 'line one line two');
      assert.equal((parsed?.reasons[0] as { kind: string } | undefined)?.kind.length, 40);
      assert.equal(Array.from(parsed?.reasons[1]?.reason ?? '').length, MAX_DECLINED_REASON_CHARS);
      assert.equal(parsed?.earlier, 0);
      const many = parseSavedDeclined({ reasons: Array.from({ length: 100_000 }, (_, i) => ({ kind: 'read', reason: `r${i}` })), earlier: Number.MAX_SAFE_INTEGER });
      assert.deepEqual(many?.reasons.map((r) => r.reason), ['r99995', 'r99996', 'r99997', 'r99998', 'r99999']);
      assert.equal(many?.earlier, 1_000_000 + 99_995);
    });

    it('keeps a partly kept edit (what the editor wrote of it) across a reload like a reason, checked when read back', () => {
      let saved: SavedDeclined | undefined;
      const reasons = new DeclinedReasons((s) => (saved = s));
      reasons.addPartialWrite({ path: 'src/a.ts', kept: [1], rejected: [2], editedByUser: false, reason: 'not\nthat one' });
      const back = parseSavedDeclined(JSON.parse(JSON.stringify(saved)));
      assert.deepEqual(back?.reasons, [{ path: 'src/a.ts', kept: [1], rejected: [2], editedByUser: false, reason: 'not that one' }]);
      const restored = new DeclinedReasons();
      restored.restore(back!);
      assert.match(restored.take() ?? '', /your change to src\/a\.ts hunk by hunk, so your own write did not happen: the editor wrote hunk 1 and not hunk 2, with this reason: "not that one"/);
      assert.match(notDeliveredMessage(back!), /- your review of its change to src\/a\.ts: the editor wrote hunk 1 and not hunk 2: "not that one"/);
      for (const junk of [
        { path: 'a', kept: [1], rejected: 'x', editedByUser: false },
        { path: 'a', kept: [0], rejected: [], editedByUser: false },
        { path: 'a', kept: [1.5], rejected: [], editedByUser: false },
        { path: 'a', kept: [1], rejected: [], editedByUser: 'yes' },
        { path: 'a'.repeat(10_000), kept: [1], rejected: [], editedByUser: false },
        { path: 'a', kept: Array.from({ length: 100_001 }, () => 1), rejected: [], editedByUser: false },
      ]) {
        assert.equal(parseSavedDeclined({ reasons: [junk], earlier: 0 }), undefined, JSON.stringify(junk).slice(0, 80));
      }
    });

    it('shown as not sent: the editor\'s words for each request and the user\'s reason', () => {
      assert.equal(notDeliveredMessage({ reasons: [{ kind: 'execute', reason: 'no' }, { kind: 'toString', reason: 'later' }], earlier: 1 }), [
        'The agent started a new session after the window reloaded, so the reasons you gave when denying its requests were not sent (it would not know the requests):',
        '- to run a command: "no"',
        '- to use a tool: "later"',
        '(and 1 earlier reason)',
      ].join('\n'));
    });

    it('the thread\'s binding keeps them across a new store reader, for its own agent and session only', () => {
      let value: unknown;
      const store = { get: () => value, set: (v: unknown) => (value = JSON.parse(JSON.stringify(v))) };
      const saved = { reasons: [{ kind: 'execute', reason: 'no' }], earlier: 0 };
      const t = new ThreadAgents(store);
      t.bind('th', 'A');
      t.setSession('th', 'A', 's1');
      t.setDeclined('th', 'B', saved);
      assert.equal(new ThreadAgents(store).get('th')?.declined, undefined, 'another agent\'s reasons are not this thread\'s');
      t.setDeclined('th', 'A', saved);
      assert.deepEqual(new ThreadAgents(store).get('th'), { agent: 'A', sessionId: 's1', declined: saved });
      t.setSession('th', 'A', 's1');
      assert.deepEqual(new ThreadAgents(store).get('th')?.declined, saved, 'the same session reopened keeps them');
      t.setSession('th', 'A', 's2');
      assert.equal(new ThreadAgents(store).get('th')?.declined, undefined, 'a new session does not');
      t.setDeclined('th', 'A', saved);
      t.setDeclined('th', 'A', undefined);
      assert.deepEqual(new ThreadAgents(store).get('th'), { agent: 'A', sessionId: 's2' });
      value = { th: { agent: 'A', sessionId: 's2', declined: { reasons: [{ kind: 'read', reason: 'a\nb' }] } }, other: { agent: 'A', declined: saved } };
      assert.deepEqual(new ThreadAgents(store).get('th')?.declined, { reasons: [{ kind: 'read', reason: 'a b' }], earlier: 0 });
      assert.equal(new ThreadAgents(store).get('other')?.declined, undefined, 'no session, nothing to deliver to');
    });
  });

  describe('through a session', () => {
    let h: AcpHarness | undefined;
    afterEach(async () => {
      await h?.close();
      h = undefined;
    });

    it('denied with a reason while the agent goes on: when it ends its turn, the chat sends the reason as the next prompt, shown as a card of its own', async () => {
      h = await startAcpHarness({ script: { turns: [[...askToRun('t1'), { update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Not running it.' } } }], []] } });
      h.ws.host.answerPrompts({ answer: 'deny', reason: 'use the clean script' });
      await h.prompt('test it');
      assert.deepEqual(h.answer('t1')?.result, { outcome: { outcome: 'selected', optionId: 'no' }, _meta: { clientTools: { reason: 'use the clean script' } } });
      assert.deepEqual(promptsOf(h.agentLog()), [
        ['test it'],
        ['Sent by the editor, not typed by the user: the user denied a permission request of yours with a reason, which your tool result did not carry.\nThe user declined your request to run a command, with this reason: "use the clean script"'],
      ]);
      assert.equal(h.ws.host.prompts.length, 1, 'one prompt: the delivery asks nothing');
      // Two runs: the user's, then the delivery's, which opens with the card saying what was sent.
      const runs = of(h.events, 'runStarted').map((e) => e.runId);
      assert.equal(runs.length, 2);
      assert.deepEqual(of(h.events, 'runFinished').map((e) => e.reason), ['completed', 'completed']);
      const card = of(h.events, 'toolCallStarted').find((e) => e.runId === runs[1]);
      assert.equal(card?.toolName, `Your reason, sent to ${AGENT_NAME}`);
      const shown = of(h.events, 'toolCallEnded').find((e) => e.callId === card?.callId)?.content[0];
      assert.ok(shown?.type === 'text' && shown.text.endsWith('with this reason: "use the clean script"'));
    });

    it('denied with a reason by an agent that ends its turn at a denial: the reason is its next prompt at once', async () => {
      h = await startAcpHarness({ script: { turns: [askToRun('t1'), []] } });
      h.ws.host.answerPrompts({ answer: 'deny', reason: 'not now' });
      await h.prompt('go');
      assert.match(promptsOf(h.agentLog())[1]?.[0] ?? '', /run a command, with this reason: "not now"$/);
    });

    it('no delivery when there is no reason: a Deny without one, an Allow', async () => {
      h = await startAcpHarness({ script: { turns: [[...askToRun('t1'), ...askToRun('t2')]] } });
      h.ws.host.answerPromptsInTurn([{ answer: 'deny' }, 'allow']);
      await h.prompt('go');
      assert.deepEqual(h.answer('t1')?.result, { outcome: { outcome: 'selected', optionId: 'no' } });
      assert.deepEqual(h.answer('t2')?.result, { outcome: { outcome: 'selected', optionId: 'once' } });
      assert.deepEqual(promptsOf(h.agentLog()), [['go']]);
      assert.equal(of(h.events, 'runStarted').length, 1);
    });

    describe('an agent that carries on after a denial (a launch with endTurnAtReasonedDeny, as Gemini CLI\'s)', () => {
      const ENDS_AT_DENY = { ...PLAIN_LAUNCH, endTurnAtReasonedDeny: true };
      /** Asks to run a command and, whatever the answer, says so and asks for another (it stops only when cancelled). */
      const carriesOn = { logWire: true, turns: [[...askToRun('t1'), { sleep: 300 }, { update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Carrying on.' } } }, ...askToRun('t2', 'npm run lint')], []] };
      const methods = (log: LogEntry[]) => log.map((e) => e.method ?? e.as).filter((m) => m === 'session/prompt' || m === 'session/cancel' || m === 't1' || m === 't2');

      it('a Deny with a reason ends its turn (session/cancel, so it asks nothing more) and the reason is its very next prompt; the run ends completed with a card saying why, not "Stopped"', async () => {
        h = await startAcpHarness({ script: carriesOn, launch: ENDS_AT_DENY });
        h.ws.host.answerPrompts({ answer: 'deny', reason: 'use the clean script' });
        await h.prompt('test it');
        assert.deepEqual(h.answer('t1')?.result, { outcome: { outcome: 'selected', optionId: 'no' }, _meta: { clientTools: { reason: 'use the clean script' } } });
        // The agent's SDK runs a notification's handler a few turns after a response that came after it, so the log's order of the two says nothing.
        assert.deepEqual(methods(h.agentLog()).sort(), ['session/cancel', 'session/prompt', 'session/prompt', 't1'], 'the turn cancelled; no second request in it');
        assert.equal(methods(h.agentLog()).at(-1), 'session/prompt');
        // On the wire the cancel comes first, so an agent that handles messages in order (Gemini CLI) stops before it asks its model again.
        assert.deepEqual(h.agentLog().flatMap((e) => e.wire ?? []), ['initialize', 'session/new', 'session/prompt', 'session/cancel', 'answer', 'session/prompt']);
        assert.deepEqual(promptsOf(h.agentLog()), [
          ['test it'],
          ['Sent by the editor, not typed by the user: the user denied a permission request of yours with a reason, which your tool result did not carry.\nThe user declined your request to run a command, with this reason: "use the clean script"'],
        ]);
        assert.equal(h.ws.host.prompts.length, 1);
        const runs = of(h.events, 'runStarted').map((e) => e.runId);
        assert.equal(runs.length, 2);
        assert.deepEqual(of(h.events, 'runFinished').map((e) => e.reason), ['completed', 'completed'], 'not the user\'s Stop');
        const titles = (runId: string | undefined) => of(h!.events, 'toolCallStarted').filter((e) => e.runId === runId).map((e) => e.toolName);
        assert.deepEqual(titles(runs[0]), ['Run npm test', 'Turn ended at your Deny']);
        assert.deepEqual(titles(runs[1]), [`Your reason, sent to ${AGENT_NAME}`]);
        assert.equal(h.session.running, false);
      });

      it('a Deny without a reason changes nothing: no cancel, the agent carries on in its turn', async () => {
        h = await startAcpHarness({ script: carriesOn, launch: ENDS_AT_DENY });
        h.ws.host.answerPromptsInTurn([{ answer: 'deny' }, { answer: 'deny', reason: ' \n ' }]);
        await h.prompt('go');
        assert.deepEqual(methods(h.agentLog()), ['session/prompt', 't1', 't2']);
        assert.deepEqual(of(h.events, 'runFinished').map((e) => e.reason), ['completed']);
      });

      it('an Allow changes nothing either', async () => {
        h = await startAcpHarness({ script: { turns: [[...askToRun('t1'), ...askToRun('t2')]] }, launch: ENDS_AT_DENY });
        h.ws.host.answerPrompts('allow');
        await h.prompt('go');
        assert.deepEqual(methods(h.agentLog()), ['session/prompt', 't1', 't2']);
      });

      it('without the flag, today\'s behaviour: the agent carries on, and the reason goes when it ends its turn', async () => {
        h = await startAcpHarness({ script: carriesOn, launch: PLAIN_LAUNCH });
        h.ws.host.answerPromptsInTurn([{ answer: 'deny', reason: 'use the clean script' }, 'allow']);
        await h.prompt('test it');
        assert.deepEqual(methods(h.agentLog()), ['session/prompt', 't1', 't2', 'session/prompt']);
        assert.match(promptsOf(h.agentLog())[1]?.[0] ?? '', /run a command, with this reason: "use the clean script"$/);
      });

      it('an agent that ignores the cancel: Stop meanwhile is the user\'s Stop (the reason waits for the next message), and the turn ends after the grace period, the agent stopped', async () => {
        h = await startAcpHarness({ script: { turns: [[...askToRun('t1'), { hang: true }], []], ignoresCancel: true }, launch: ENDS_AT_DENY, cancelGraceMs: 1_000 });
        h.ws.host.answerPrompts({ answer: 'deny', reason: 'not now' });
        const turn = h.prompt('go');
        await h.waitForEvent((e) => e.type === 'toolCallStarted' && e.toolName === 'Turn ended at your Deny');
        h.session.cancel();
        await turn;
        assert.deepEqual(promptsOf(h.agentLog()), [['go']], 'nothing sent on its own after Stop');
        assert.deepEqual(of(h.events, 'runFinished').map((e) => e.reason), ['cancelled']);
        assert.equal(h.agentLog().filter((e) => e.method === 'session/cancel').length, 2, 'the session\'s cancel, then the user\'s');
        assert.ok(h.logger.entries.some((e) => /did not end its turn/.test(e.message)), 'the agent was stopped');
      });
    });

    it('after Stop nothing is sent on its own: the reason goes first, in a block of its own, with the user\'s next message', async () => {
      h = await startAcpHarness({ script: { turns: [[...askToRun('t1'), { hang: true, untilCancel: true }], []] } });
      h.ws.host.answerPrompts({ answer: 'deny', reason: 'try the other folder' });
      const turn = h.prompt('go');
      await h.waitForEvent((e) => e.type === 'toolCallUpdated' && /Denied by you/.test(e.details ?? ''));
      h.session.cancel();
      await turn;
      assert.deepEqual(promptsOf(h.agentLog()), [['go']]);
      await h.prompt('carry on');
      const [reason, typed] = promptsOf(h.agentLog())[1] ?? [];
      assert.match(reason ?? '', /run a command, with this reason: "try the other folder"$/);
      assert.equal(typed, 'carry on');
      assert.equal(of(h.events, 'runStarted').length, 2);
    });
  });
});
