import * as assert from 'node:assert/strict';
import { Consent, type Caller, type ConsentAsk, type ConsentOptions } from '../../../../src/core/consent/consent';
import type { PermissionAnswer, PermissionPrompt, PromptPresenter } from '../../../../src/core/consent/presenter';
import { delay } from '../../../support/dispatch-harness';
import { ManualTimers } from './permission-fakes';

/** A presenter whose prompts stay open until the test answers them. */
class HeldPresenter implements PromptPresenter {
  readonly shown: { prompt: PermissionPrompt; answer: (a: PermissionAnswer | undefined) => void }[] = [];
  confirm(prompt: PermissionPrompt, signal: AbortSignal): Promise<PermissionAnswer | undefined> {
    return new Promise((resolve) => {
      signal.addEventListener('abort', () => resolve(undefined), { once: true });
      this.shown.push({ prompt, answer: resolve });
    });
  }
}

const USER: Caller = { kind: 'backend', userRun: true };

function ask(tool: string, extra: Partial<ConsentAsk> = {}): ConsentAsk {
  return {
    requestId: `r-${Math.random()}`,
    tool: { key: `key:${tool}`, name: tool, group: 'G', requiresPermission: true },
    preparation: { prompt: `${tool} a.txt?` },
    signal: new AbortController().signal,
    ...extra,
  };
}

describe('Consent: the one decision of whether a call may run', () => {
  let presenter: HeldPresenter;
  let timers: ManualTimers;
  let consent: Consent;
  const make = (options: Partial<ConsentOptions> = {}) => {
    presenter = new HeldPresenter();
    timers = new ManualTimers();
    consent = new Consent({ presenter, timers, ...options });
  };
  beforeEach(() => make());
  afterEach(() => consent.dispose());

  it('asks nothing for a tool that needs no permission and nothing forced, whatever the request says', async () => {
    const d = await consent.admit(USER).decide(ask('Read', { tool: { key: 'k', name: 'Read', group: 'G', requiresPermission: false }, description: 'please ask me' }));
    assert.deepEqual(d, { kind: 'notAsked' });
    assert.equal(presenter.shown.length, 0);
  });

  it('fixes the background policy when the call arrives: a change while it waits does not apply to it', () => {
    const before = consent.admit({ kind: 'backend', userRun: false });
    consent.setBackgroundCalls('deny');
    assert.equal(before.refusal(), undefined);
    assert.deepEqual(consent.admit({ kind: 'mcp', label: 'x', userRun: false }).refusal(), { kind: 'denied', via: 'backgroundCalls' });
    assert.equal(consent.admit({ kind: 'mcp', label: 'x', userRun: true }).refusal(), undefined, 'within the user\'s run');
  });

  it('names the caller in the prompt: an MCP client always, an agent or the backend when it asks outside the user\'s run', async () => {
    const calls: [Caller, RegExp, RegExp][] = [
      [{ kind: 'mcp', label: 'cli', userRun: true }, /^Write a\.txt\?$/, /through the editor's MCP server by cli/],
      [{ kind: 'mcp', label: 'cli', userRun: false }, /^cli request: Write a\.txt\?$/, /outside this window's chat .* \(cli\)/],
      [{ kind: 'agent', label: 'Gem', userRun: false }, /^Gem request: Write a\.txt\?$/, /Gem, the agent of a conversation in this chat, asked for this while no turn you started/],
      [{ kind: 'backend', userRun: false }, /^Background request: Write a\.txt\?$/, /no chat run you started/],
    ];
    for (const [caller, message, detail] of calls) {
      const decided = consent.admit(caller).decide(ask('Write'));
      await delay(0);
      const open = presenter.shown.at(-1);
      assert.match(open?.prompt.message ?? '', message);
      assert.match(open?.prompt.detail ?? '', detail);
      open?.answer('deny');
      assert.equal((await decided).kind, 'denied');
    }
  });

  it('askers of one binding while it is decided share one prompt and one answer; one withdrawing leaves the other asking', async () => {
    const first = new AbortController();
    const a = consent.admit({ kind: 'agent', label: 'Gem', userRun: true }).decide(ask('Gem Edit', { binding: 'edit a.txt #1', signal: first.signal }));
    const b = consent.admit({ kind: 'agent', label: 'Gem', userRun: true }).decide(ask('OpenDiff', { binding: 'edit a.txt #1' }));
    await delay(0);
    assert.equal(presenter.shown.length, 1, 'asked once');
    first.abort();
    assert.deepEqual(await a, { kind: 'cancelled' });
    await delay(0);
    assert.equal(presenter.shown.length, 2, 'the one still waiting is asked on its own');
    assert.match(presenter.shown[1]?.prompt.message ?? '', /^OpenDiff a\.txt\?$/);
    presenter.shown[1]?.answer('allow');
    assert.deepEqual(await b, { kind: 'allowed', via: 'prompt' });
  });

  it('the user\'s answer for a binding answers its next asker once, within the hold; a third asker, or one after it, is asked', async () => {
    const agent = consent.admit({ kind: 'agent', label: 'Gem', userRun: true });
    const first = agent.decide(ask('Gem Edit', { binding: 'edit a.txt #2' }));
    await delay(0);
    presenter.shown[0]?.answer('allow');
    assert.deepEqual(await first, { kind: 'allowed', via: 'prompt' });
    assert.deepEqual(await consent.admit({ kind: 'agent', label: 'Gem', userRun: true }, 'edit a.txt #2').decide(ask('OpenDiff')), { kind: 'allowed', via: 'prompt' });
    assert.equal(presenter.shown.length, 1, 'the second asker was not asked');
    const third = agent.decide(ask('OpenDiff', { binding: 'edit a.txt #2' }));
    await delay(0);
    assert.equal(presenter.shown.length, 2, 'the answer was spent');
    presenter.shown[1]?.answer('deny');
    assert.equal((await third).kind, 'denied');
    // The third's Deny is held in turn; after the hold, it answers nobody.
    timers.advance(60_001);
    const late = agent.decide(ask('OpenDiff', { binding: 'edit a.txt #2' }));
    await delay(0);
    assert.equal(presenter.shown.length, 3);
    presenter.shown[2]?.answer('allow');
    assert.equal((await late).kind, 'allowed');
  });

  it('an asker that joined takes the user\'s answer behind its own Deny policy, and the answer is then not held for a third', async () => {
    consent.gate.setToolPolicies({ get: (key) => (key === 'key:Denied' ? 'deny' : undefined) });
    const first = consent.admit(USER).decide(ask('Gem Edit', { binding: 'b5' }));
    const denied = consent.admit(USER).decide(ask('Denied', { binding: 'b5' }));
    const joined = consent.admit(USER).decide(ask('OpenDiff', { binding: 'b5' }));
    await delay(0);
    assert.equal(presenter.shown.length, 1);
    presenter.shown[0]?.answer('allow');
    assert.deepEqual(await first, { kind: 'allowed', via: 'prompt' });
    assert.deepEqual(await denied, { kind: 'denied', via: 'policy' });
    assert.deepEqual(await joined, { kind: 'allowed', via: 'prompt' });
    const third = consent.admit(USER).decide(ask('OpenDiff', { binding: 'b5' }));
    await delay(0);
    assert.equal(presenter.shown.length, 2, 'spent by the askers that joined');
    presenter.shown[1]?.answer('deny');
    await third;
  });

  it('a held answer never overrides the second asker\'s own Deny policy, and a policy answer is never held', async () => {
    consent.gate.setToolPolicies({ get: (key) => (key === 'key:OpenDiff' ? 'deny' : key === 'key:Auto' ? 'allow' : undefined) });
    const first = consent.admit(USER).decide(ask('Gem Edit', { binding: 'b3' }));
    await delay(0);
    presenter.shown[0]?.answer('allow');
    await first;
    assert.deepEqual(await consent.admit(USER).decide(ask('OpenDiff', { binding: 'b3' })), { kind: 'denied', via: 'policy' });
    assert.deepEqual(await consent.admit(USER).decide(ask('Auto', { binding: 'b4' })), { kind: 'allowed', via: 'policy' });
    const next = consent.admit(USER).decide(ask('Other', { binding: 'b4' }));
    await delay(0);
    assert.equal(presenter.shown.length, 2, 'a policy is not the user\'s answer for the action: asked');
    presenter.shown[1]?.answer('deny');
    await next;
  });
});
