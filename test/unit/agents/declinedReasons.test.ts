/**
 * The user's reasons for denying an agent's own permission requests reach the agent at its turn's
 * boundary (src/agents/declinedReasons.ts, agentSession.ts): a scripted agent process over a real
 * ACP stream asks, the gate's prompt is denied with a reason, and the agent's next `session/prompt`
 * carries it; nothing is sent without a reason, and the chat shows what was sent as a card of its own.
 */
import assert from 'node:assert/strict';
import { DeclinedReasons, declinedMessage, MAX_DECLINED_PER_MESSAGE, MAX_DECLINED_REASON_CHARS } from '../../../src/agents/declinedReasons';
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
