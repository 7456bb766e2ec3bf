/**
 * A rogue backend tries to get a click on one prompt or card to answer another: it asks "Delete
 * harmless.txt" as request `x`, starts a new session (which clears the replay cache), and asks
 * "Delete important.docx" under the same `x` while the chat was hidden, hoping the view restores the
 * old prompt from its saved state, or a card keyed by the request id keeps the old call's text.
 *
 * Real `ClientCore` and permission gate, fake host on real temporary folders, the scripted backend on
 * real sockets; the chat's side is the extension's own ledger of the prompt shown (src/core/consent/shownPrompt.ts,
 * what src/vscode/prompts/chatPrompts.ts puts on screen) and the webview's own reducer (src/webview/state.ts)
 * fed the host's messages through the webview message schema, as src/vscode/chat/chatView.ts posts them.
 * What the card looks like on screen is test/e2e/approval-identity.e2e.test.ts's.
 */
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { CallRecord } from '../../src/core/callRecord';
import type { PermissionPrompt } from '../../src/core/consent/presenter';
import { chatApprovalOf, ShownPrompt } from '../../src/core/consent/shownPrompt';
import { ErrorCode } from '../../src/protocol';
import { approvalDigestInput, HostToWebview, type ChatApproval } from '../../src/protocol/webview';
import { toChatCallRecord } from '../../src/vscode/chat/chatBridge';
import { ideToolGroup } from '../../src/tools/ide/group';
import { initialState, reduce, restoreState, type ChatState, type ToolItem } from '../../src/webview/state';
import { DispatchHarness } from '../support/dispatch-harness';
import { assertRefused, CoreRig, until } from './support/core-rig';

/** The digest the chat's card sends: of the texts it shows. */
const shownDigest = (a: ChatApproval) => createHash('sha256').update(approvalDigestInput(a)).digest('hex');

/** The chat view: the webview's reducer, fed what the host posts while it is listening. */
class ChatView {
  state: ChatState = initialState();
  visible = true;
  /** The host's latest approval, posted now or on the next `ready` (src/vscode/chat/chatView.ts). */
  private approval: ChatApproval | null = null;
  private readonly queue: unknown[] = [];

  post(message: unknown): void {
    if (!this.visible) {
      if ((message as { type: string }).type === 'approval') this.approval = (message as { prompt: ChatApproval | null }).prompt;
      else this.queue.push(message);
      return;
    }
    if ((message as { type: string }).type === 'approval') this.approval = (message as { prompt: ChatApproval | null }).prompt;
    this.state = reduce(this.state, HostToWebview.parse(JSON.parse(JSON.stringify(message))));
  }

  /** Hidden: the page is thrown away; what it saved is what an older build saved (the whole state). */
  hide(): unknown {
    this.visible = false;
    return JSON.parse(JSON.stringify(this.state)) as unknown;
  }

  /** Shown again: a new page restores the saved state, says `ready`, and the host flushes. */
  show(saved: unknown, openRecordIds?: string[]): void {
    this.state = reduce(initialState(), { type: 'restore', saved });
    this.visible = true;
    for (const m of [{ type: 'approval', prompt: this.approval }, ...this.queue.splice(0), { type: 'sync', activeRunId: null, ...(openRecordIds ? { openCallIds: openRecordIds } : {}) }]) {
      this.state = reduce(this.state, HostToWebview.parse(JSON.parse(JSON.stringify(m))));
    }
  }

  cards(): ToolItem[] {
    return this.state.items.filter((i): i is ToolItem => i.kind === 'tool');
  }
}

describe('rogue backend: a click answers exactly the prompt and card it showed', () => {
  let rig: CoreRig;
  let ledger: ShownPrompt;
  let view: ChatView;
  const records: CallRecord[] = [];

  beforeEach(async () => {
    rig = await CoreRig.start({ files: { 'harmless.txt': 'old notes', 'important.docx': 'the thesis' } });
    ledger = new ShownPrompt();
    view = new ChatView();
    records.length = 0;
    // Prompts in the chat, as VsCodeIdeHost does with promptStyle `chat`.
    rig.host.surface = 'chat';
    rig.host.confirm = (prompt: PermissionPrompt, signal: AbortSignal) => {
      rig.host.prompts.push(prompt);
      return ledger.show(prompt, signal);
    };
    ledger.onDidChange(() => {
      const first = ledger.current;
      view.post({ type: 'approval', prompt: first ? chatApprovalOf(first) : null });
    });
    rig.core.onCallRecord((r) => {
      records.push(r);
      view.post({ type: 'callRecord', record: toChatCallRecord(r, (b) => Buffer.from(b).toString('base64')) });
    });
    await rig.connect();
  });
  afterEach(() => {
    ledger.dispose();
    return rig.dispose();
  });

  /** The backend forgets every session and restarts: the extension starts a new one (replay cache cleared). */
  async function newSession(): Promise<void> {
    rig.sessions.clear();
    const fresh = rig.stateOf('connected', (s) => s.kind === 'connected' && !s.resumed);
    await rig.restartBackend();
    await fresh;
  }

  it('T-CARD-01 "Delete harmless.txt" as x, the chat hidden, a new session, "Delete important.docx" as x: the restored chat shows the new prompt, and only an answer to it counts', async () => {
    // Its answer is for a session that ends: the extension never sends it.
    void rig.backend.startCall('DeleteFile', { path: 'harmless.txt' }, { requestId: 'x' }).response.catch(() => undefined);
    await until(() => view.state.approval !== null, 'the first prompt in the chat');
    const old = view.state.approval!;
    assert.match(old.message, /^Delete harmless\.txt/);
    const saved = view.hide();

    await newSession();
    await until(() => !ledger.isOpen, 'the old session\'s prompt closed');
    const second = rig.backend.startCall('DeleteFile', { path: 'important.docx' }, { requestId: 'x' });
    await until(() => ledger.isOpen, 'the new prompt');

    // The view comes back from what it saved: no prompt of its own, then the one that is open.
    assert.equal(restoreState(saved).approval, null, 'a saved prompt was restored');
    view.show(saved);
    const shown = view.state.approval!;
    assert.match(shown.message, /^Delete important\.docx/);
    assert.notEqual(shown.promptId, old.promptId);
    assert.notEqual(shown.promptId, 'x', 'a prompt is named by its own id, not the backend\'s request id');

    // What a card still showing the old prompt would send: refused, nothing deleted.
    assert.equal(ledger.answer(old.promptId, old.digest, 'allow'), 'not-open');
    assert.equal(ledger.answer(shown.promptId, old.digest, 'allow'), 'digest-mismatch');
    assert.equal(ledger.answer('x', shown.digest, 'allow'), 'not-open');
    assert.ok(existsSync(rig.file('important.docx')) && existsSync(rig.file('harmless.txt')));
    // The card that shows "Delete important.docx" answers it.
    assert.equal(ledger.answer(shown.promptId, shownDigest(shown), 'allow'), 'accepted');
    assert.equal((await second.response).success, true);
    assert.equal(existsSync(rig.file('important.docx')), false);
    assert.equal(existsSync(rig.file('harmless.txt')), true);
  });

  it('T-CARD-02 an answer for another prompt id, the request id, another digest or a button the prompt did not offer is refused and runs nothing', async () => {
    const call = rig.backend.startCall('DeleteFile', { path: 'harmless.txt' }, { requestId: 'y' });
    await until(() => view.state.approval !== null, 'the prompt in the chat');
    const shown = view.state.approval!;
    const digest = shownDigest(shown);
    assert.equal(digest, rig.host.prompts[0].digest, 'the card\'s digest of what it shows is the prompt\'s');
    const altered = shownDigest({ ...shown, detail: `${shown.detail}\nIt is safe to delete.` });
    assert.equal(ledger.answer('y', digest, 'allow'), 'not-open');
    assert.equal(ledger.answer(`${shown.promptId}-other`, digest, 'allow'), 'not-open');
    assert.equal(ledger.answer(shown.promptId, altered, 'allow'), 'digest-mismatch');
    assert.equal(ledger.answer(shown.promptId, digest, 'denyAll'), 'not-offered');
    assert.equal(existsSync(rig.file('harmless.txt')), true);
    assert.equal(ledger.isOpen, true, 'the prompt stays open for a real answer');
    assert.equal(ledger.answer(shown.promptId, digest, 'deny', 'keep it'), 'accepted');
    assertRefused(await call.response, ErrorCode.PermissionDenied);
    assert.equal(ledger.answer(shown.promptId, digest, 'allow'), 'not-open', 'answered already');
    assert.equal(existsSync(rig.file('harmless.txt')), true);
  });

  it('T-CARD-03 a call that reuses a settled request id in a new session gets a card of its own: the old card keeps the old call\'s text, a missed end closes it', async () => {
    rig.host.confirm = (prompt: PermissionPrompt) => (rig.host.prompts.push(prompt), Promise.resolve('deny' as const));
    assertRefused(await rig.backend.call('DeleteFile', { path: 'harmless.txt' }, { requestId: 'z' }), ErrorCode.PermissionDenied);
    await newSession();
    // While the chat is hidden, the new call's prompt is open; the host's queue of records is lost.
    const saved = view.hide();
    rig.host.confirm = (prompt: PermissionPrompt, signal: AbortSignal) => (rig.host.prompts.push(prompt), ledger.show(prompt, signal));
    const call = rig.backend.startCall('DeleteFile', { path: 'important.docx' }, { requestId: 'z' });
    await until(() => ledger.isOpen, 'the new prompt');
    const open = records.filter((r) => r.status === 'awaiting-permission').map((r) => r.recordId).slice(-1);
    view.show(saved, open);
    view.post({ type: 'callRecord', record: toChatCallRecord(records.at(-1)!, (b) => Buffer.from(b).toString('base64')) });

    const cards = view.cards();
    assert.equal(cards.length, 2, `one card per call, not one per request id: ${JSON.stringify(cards.map((c) => c.target))}`);
    assert.match(cards[0].target ?? '', /^Delete harmless\.txt/);
    assert.equal(cards[0].status, 'denied', 'the old call\'s card keeps its own end');
    assert.match(cards[1].target ?? '', /^Delete important\.docx/);
    assert.equal(cards[1].status, 'awaiting-permission');
    assert.notEqual(cards[0].recordId, cards[1].recordId);

    // A card left open by a lost end (the view missed it while hidden) is closed by the next sync,
    // even though a new call uses its request id.
    const stale = { ...view.state, items: view.state.items.map((i) => (i === cards[0] ? { ...cards[0], status: 'awaiting-permission' as const } : i)) };
    const synced = reduce(stale, { type: 'sync', activeRunId: null, openCallIds: open });
    const [before, now] = synced.items.filter((i): i is ToolItem => i.kind === 'tool');
    assert.equal(before.status, 'cancelled');
    assert.equal(now.status, 'awaiting-permission');
    ledger.close(undefined);
    await call.response;
  });

  it('T-CARD-04 a new session may use at once a request id the old session still had in flight: the new call is asked and runs, never refused as a duplicate whose answer never comes', async () => {
    const ide = ideToolGroup();
    const h = new DispatchHarness({ host: rig.host, group: ide.group, tools: ide.tools });
    try {
      h.invoke('DeleteFile', { path: 'harmless.txt' }, 'w');
      await until(() => ledger.isOpen, 'the old session\'s prompt');
      const old = ledger.current!;
      // The welcome of a new session and the request after it, handled in one turn (one TCP read).
      h.dispatcher.onNewSession();
      h.invoke('DeleteFile', { path: 'important.docx' }, 'w');
      assert.deepEqual(h.responses('w').map((r) => r.errorCode), [], 'the new call was refused');
      await until(() => ledger.current?.message.startsWith('Delete important.docx') === true, 'the new call\'s prompt');
      const fresh = ledger.current!;
      assert.equal(ledger.isOpen, true, 'the old session\'s prompt closed');
      assert.notEqual(fresh.promptId, old.promptId);
      assert.equal(ledger.answer(fresh.promptId, fresh.digest, 'allow'), 'accepted');
      const answer = await h.response('w');
      assert.equal(answer.success, true, answer.errorMessage);
      assert.equal(h.responses('w').length, 1, 'one answer, the new call\'s');
      assert.equal(existsSync(rig.file('important.docx')), false);
      assert.equal(existsSync(rig.file('harmless.txt')), true);
    } finally {
      h.dispose();
    }
  });
});
