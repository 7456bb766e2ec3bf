/**
 * The chat's DOM. `ChatView.update(state)` brings the page in line with a state from the reducer.
 * Items keep their element between updates: an unchanged item (same object) is not touched, an
 * answer re-renders its markdown only when its text changed, a tool card is patched in place so its
 * open/closed state and keyboard focus survive status changes.
 */
import { ChatAction, isInlineImageType, MAX_USER_TEXT, type ChatAgentOption } from '../protocol/webview';
import { AgentPicker } from './agentPicker';
import { attachmentChip, ComposerKeys, sentAttachment } from './composer';
import { LongPastes, userText } from './longPaste';
import { EmptyState } from './emptyState';
import { renderError } from './errorCard';
import { QuestionBanner } from './questionBanner';
import { describeBinary, describeExpansion, describeUsage, describeUsageInWords, formatDuration, STATUS_LABEL } from './format';
import { ApprovalCard, type AnswerApproval } from './approvalCard';
import { renderMarkdown } from './markdown';
import type { AnswerItem, ChatItem, ChatState, ResultPart, ToolItem } from './state';
import { cardSentence } from './cardSentence';
import { renderKeptChange } from './keptChangeCard';
import { renderReview } from './reviewCard';
import { reviewClass, reviewLabel } from './reviewLabel';
import { ThreadList } from './threadList';
import { foldedAway, foldNote } from './expansionFold';
import { SteerStrip } from './steerStrip';
import { ContextMeter } from './contextMeter';
import { rewindControl } from './rewindButton';
import { MAX_PENDING_STEERS } from './steers';
import { DEFERRED_ATTR, defersResult, EAGER_TAIL_ITEMS, isLargePart, LazyMarkdown, virtualisationOn, VIRTUALISED_CLASS } from './virtualise';
import { ItemChunks } from './itemChunks';
import { unchangedPrefix } from './stateItems';
import { ITEMS_PER_CHUNK } from './chunkNames';
import { Announcer, AWAITING_TEXT } from './announcer';

export interface ChatActions {
  send(text: string): void;
  stop(): void;
  newChat(): void;
  switchThread(threadId: string): void;
  renameThread(threadId: string, title: string): void;
  deleteThread(threadId: string): void;
  retry(): void;
  copy(text: string): void;
  toggleCard(id: string, open: boolean): void;
  decideReview(reviewId: string, accept: boolean, reason: string | undefined): void;
  reviewHunk(reviewId: string, hunk: number, keep: boolean): void;
  /** An accepted review's card: open its change as a diff, or undo it. */
  keptChange(reviewId: string, action: 'open' | 'undo'): void;
  removeAttachment(): void;
  /** A file path in an answer was clicked; the host decides whether it may be opened. */
  openPath(path: string, line: number | undefined): void;
  answerApproval: AnswerApproval;
  /** A button of the chat's own: Use a real model, Connect. */
  runAction(action: ChatAction): void;
  /** A ShowMessage question answered in the chat: a button by position, or null to give up. */
  answerQuestion(recordId: string, index: number | null): void;
  /** The user picked an agent (the backend is ''). */
  pickAgent(name: string): void;
  /** A message typed while the run works: queued for its next tool boundary. */
  steer(text: string): void;
  /** Takes a queued message back (Cancel, or Edit, which also puts its text in the message box). */
  withdrawSteer(steerId: string): void;
  /** Compact now: summarise the conversation before its newest turn. */
  compact(): void;
  /** Rewind to here on the message that started run `runId`. */
  rewind(runId: string): void;
}

type Child = Node | string | null | undefined | false;
type Attrs = Record<string, string | boolean | undefined>;

function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (name === 'class') el.className = String(value);
    else el.setAttribute(name, value === true ? '' : value);
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) el.append(c);
  return el;
}

const CONNECTION_LABEL = {
  connecting: 'Connecting…',
  connected: 'Connected',
  reconnecting: 'Reconnecting…',
  disconnected: 'Disconnected',
} as const;

const CALLER_TITLE = 'Asked for through the editor\'s MCP server by this MCP client (the name is what the client says it is).';
const BACKGROUND_TITLE = 'A background call: the backend asked for it while no chat run you started was in progress.';

/** A record's caller is an MCP client (`MCP: <name>`, src/core/callRecord.ts callerLabel) or the agent of a conversation (its configured name). */
function isAgentCaller(caller: string | undefined): caller is string {
  return caller !== undefined && !caller.startsWith('MCP: ');
}

function callerTitle(caller: string | undefined): string {
  if (caller === undefined) return CALLER_TITLE;
  return isAgentCaller(caller) ? `Asked for by ${caller}, the agent of this conversation` : `${caller}: ${CALLER_TITLE}`;
}

function backgroundTitle(caller: string | undefined): string {
  return isAgentCaller(caller) ? `A background call: ${caller} asked for it while no turn you started was running.` : BACKGROUND_TITLE;
}

/** Where the call ran. Only a card from the extension's own record says it ran in the editor. */
function executorLabel(item: ToolItem): string {
  if (item.notSent) return 'Not sent to your editor';
  if (item.executor === 'backend') return item.agent ?? 'Backend';
  if (item.requestId === undefined) return 'IDE';
  if (item.refused) return 'Refused by your editor';
  if (item.status === 'succeeded' || item.status === 'failed') return 'Ran in your editor';
  return item.status === 'denied' ? 'Not run' : 'In your editor';
}

function executorTitle(item: ToolItem): string {
  if (item.notSent) return 'The backend reported this call of an editor tool and ended it without sending it to your editor: nothing ran here.';
  if (item.executor === 'backend') return item.agent !== undefined ? `A tool call of ${item.agent}, as the agent reported it` : 'Runs in the agent backend';
  if (item.requestId === undefined) return 'Runs in the editor';
  if (item.refused) return 'Your editor refused this call before running it (unknown or switched-off tool, invalid arguments, too many calls at once): nothing ran.';
  return `Recorded by Client Tools as your editor executed it (not as ${isAgentCaller(item.caller) ? 'the agent' : 'the backend'} reported it)`;
}

interface Rendered {
  item: ChatItem;
  el: HTMLElement;
}

export class ChatView {
  private readonly connDot = h('span', { class: 'conn-dot', 'aria-hidden': 'true' });
  private readonly connText = h('span', { class: 'conn-text' });
  private readonly modelText = h('span', { class: 'model-name' });
  private readonly offlineBadge = h('span', {
    class: 'badge offline-badge',
    title: 'Answers come from the backend\'s scripted offline demo model, not a language model. Set clientTools.model.* to use a real model.',
    hidden: true,
  }, 'Offline demo model');
  private readonly detailText = h('span', { class: 'conn-detail' });
  private readonly runText = h('span', { class: 'run-state' });
  private readonly threadUsageText = h('span', { class: 'thread-usage', hidden: true });
  private readonly contextMeter = new ContextMeter(() => this.actions.compact());
  /** An agent's conversation: how full its context is, as the agent reports it. */
  private readonly agentUsageText = h('span', { class: 'thread-usage agent-usage', hidden: true });
  private readonly statusLine = h('div', { class: 'status-line', role: 'status' },
    this.connDot, this.connText, this.modelText, this.offlineBadge, this.detailText, this.runText, this.threadUsageText, this.agentUsageText, this.contextMeter.root);

  private readonly list = h('div', { class: 'items' });
  private readonly emptyState = new EmptyState({ send: (text) => this.actions.send(text), runAction: (action) => this.actions.runAction(action) });
  private readonly empty = this.emptyState.root;
  private readonly transcript = h('main', { class: 'transcript', 'aria-label': 'Conversation', tabindex: '0' }, this.empty, this.list);

  private readonly banner = h('div', { class: 'banner', hidden: true }, AWAITING_TEXT);
  private readonly question = new QuestionBanner((recordId, index) => this.actions.answerQuestion(recordId, index));
  private readonly input = h('textarea', {
    class: 'input',
    rows: '2',
    'aria-label': 'Message to the agent',
    placeholder: 'Ask the agent… (Enter to send, Shift+Enter for a new line)',
  });
  private readonly sendButton = h('button', { type: 'submit', class: 'send' }, 'Send');
  private readonly stopButton = h('button', { type: 'button', class: 'stop', hidden: true }, 'Stop');
  private readonly agentPicker = new AgentPicker((name) => this.actions.pickAgent(name));
  private readonly attachments = h('div', { class: 'attachments', hidden: true });
  private readonly pastes = new LongPastes(this.input);
  private readonly composer = h('form', { class: 'composer', 'aria-label': 'Compose a message' },
    this.attachments,
    this.input,
    this.pastes.strip,
    h('div', { class: 'composer-actions' }, this.sendButton, this.stopButton, h('span', { class: 'spacer' }), this.agentPicker.root));
  private readonly announcer = new Announcer((id) => this.rendered.get(id)?.el.querySelector('.markdown')?.textContent ?? '');
  private readonly approval: ApprovalCard;
  private readonly steerStrip = new SteerStrip({
    withdraw: (steer, editIt) => {
      this.actions.withdrawSteer(steer.steerId);
      if (editIt) {
        this.input.value = this.input.value.trim() === '' ? steer.text : `${steer.text}\n${this.input.value}`;
        this.input.focus();
      }
    },
  });

  private readonly rendered = new Map<string, Rendered>();
  private readonly threadList: ThreadList;
  private state: ChatState | undefined;
  private inputHadFocus = false;
  /** What the user typed as a review's reason, kept while its card is rebuilt. */
  private readonly reviewReasons = new Map<string, string>();
  private readonly keys: ComposerKeys;
  /** Items out of view are left to the browser (src/webview/virtualise.ts). */
  private readonly virtualised = virtualisationOn(document);
  private readonly lazyMarkdown = this.virtualised ? new LazyMarkdown(this.transcript) : undefined;
  private readonly chunks = new ItemChunks(this.list, this.virtualised ? ITEMS_PER_CHUNK : 0);
  /** The items the list shows now, as the state had them; undefined when the list was cleared. */
  private renderedItems: readonly ChatItem[] | undefined;
  /** The item being built is far from the transcript's end: its answer may wait (LazyMarkdown). */
  private buildingFarFromEnd = false;
  /** What the Retry buttons were last set to, and whether an error card (which may have one) was built since. */
  private retryDisabled: boolean | undefined;
  private retryAdded = false;

  constructor(root: HTMLElement, private readonly actions: ChatActions) {
    this.threadList = new ThreadList({
      newChat: () => this.actions.newChat(),
      switchThread: (id) => this.actions.switchThread(id),
      renameThread: (id, title) => this.actions.renameThread(id, title),
      deleteThread: (id) => this.actions.deleteThread(id),
      closed: () => {
        this.transcript.hidden = false;
        this.input.focus();
      },
    });
    root.classList.add('chat');
    if (this.virtualised) root.classList.add(VIRTUALISED_CLASS);
    this.approval = new ApprovalCard((promptId, digest, answer, reason, edited) => this.actions.answerApproval(promptId, digest, answer, reason, edited));
    root.append(this.statusLine, this.threadList.root, this.transcript, this.approval.root, this.banner, this.question.root, this.steerStrip.root, this.composer, this.announcer.root);

    this.composer.addEventListener('submit', (e) => {
      e.preventDefault();
      this.trySend();
    });
    this.keys = new ComposerKeys(this.input, () => this.state, { stop: () => this.actions.stop() });
    root.addEventListener('keydown', (e) => this.keys.onViewKey(e));
    this.input.addEventListener('input', () => this.input.setCustomValidity(''));
    this.input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && !e.shiftKey && !e.isComposing && !e.altKey && !e.ctrlKey && !e.metaKey) {
        e.preventDefault();
        this.trySend();
      }
    });
    this.stopButton.addEventListener('click', () => this.actions.stop());
    this.transcript.addEventListener('click', (e) => {
      const target = e.target instanceof Element ? e.target.closest('button') : null;
      if (!target) return;
      if (target.classList.contains('retry')) this.actions.retry();
      if (target.classList.contains('file-link') && target.dataset.path) {
        this.actions.openPath(target.dataset.path, target.dataset.line ? Number(target.dataset.line) : undefined);
      }
      if (target.classList.contains('copy-answer')) this.copyAnswer(target);
      if (target.classList.contains('rewind-here') && target.dataset.runId) this.actions.rewind(target.dataset.runId);
      if (target.classList.contains('connect-backend')) this.actions.runAction('connect');
      const action = target.classList.contains('error-action') ? ChatAction.safeParse(target.dataset.action) : undefined;
      if (action?.success) this.actions.runAction(action.data);
      if (target.classList.contains('copy-code')) {
        const code = target.closest('.code-block')?.querySelector('code');
        if (code) {
          this.actions.copy(code.textContent ?? '');
          target.textContent = 'Copied';
          setTimeout(() => { target.textContent = 'Copy'; }, 1500);
        }
      }
    });
  }

  update(state: ChatState): void {
    let prev = this.state;
    this.state = state;
    const switched = prev !== undefined && prev.threadId !== state.threadId;
    if (switched) {
      // Another thread's transcript: build it afresh, and do not read it out as if it were new.
      this.chunks.clear();
      this.rendered.clear();
      this.renderedItems = undefined;
      prev = undefined;
    }
    // Expansion steps shown or folded: rebuild, so cards and steps come and go together.
    if (prev !== undefined && prev.showExpansionSteps !== state.showExpansionSteps) {
      this.chunks.clear();
      this.rendered.clear();
      this.renderedItems = undefined;
    }
    const stick = switched || this.nearBottom() || this.endsWithNewUserMessage(prev, state);
    this.renderStatus(state);
    this.renderItems(state);
    this.renderComposer(state);
    this.approval.update(state.approval);
    this.steerStrip.update(state.steers);
    this.contextMeter.update(state.contextUse, state.run !== null);
    this.threadList.update(state);
    this.announcer.changes(prev, state);
    if (stick) this.transcript.scrollTop = this.transcript.scrollHeight;
  }

  /** Opens the history list in the transcript's place (the view title's History, the one place for it and New Chat). */
  openHistory(): void {
    this.transcript.hidden = true;
    this.threadList.open();
  }

  /** The agents on offer and the one the shown thread talks to (the host's `agents` message). */
  setAgents(agents: readonly ChatAgentOption[], current: string): void {
    this.agentPicker.update(agents, current);
  }

  /** Puts the keyboard in the message box (Focus Chat). */
  focusInput(): void {
    if (this.threadList.isOpen) this.threadList.close();
    this.input.focus();
  }

  private copyAnswer(button: HTMLButtonElement): void {
    const id = button.closest<HTMLElement>('.msg.answer')?.dataset.itemId;
    const item = this.state?.items.find((it) => it.id === id);
    if (item?.kind !== 'answer') return;
    this.actions.copy(item.text);
    button.textContent = 'Copied';
    setTimeout(() => { button.textContent = 'Copy'; }, 1500);
  }

  private trySend(): void {
    const s = this.state;
    if (!s) return;
    const text = this.pastes.expand(this.input.value);
    if (!text.trim()) return;
    // Over the protocol's limit the extension would refuse it: kept in the box, and the user told.
    if (text.length > MAX_USER_TEXT) {
      const said = `This message has ${text.length.toLocaleString('en-US')} characters; at most ${MAX_USER_TEXT.toLocaleString('en-US')} can be sent. Shorten it or attach the file instead.`;
      this.input.setCustomValidity(said);
      this.input.reportValidity();
      this.announcer.say(said);
      return;
    }
    this.input.setCustomValidity('');
    // During a run the message waits for its next tool boundary; it answers no prompt that is open.
    if (s.run) {
      if (s.run.stopRequested || s.steers.length >= MAX_PENDING_STEERS) return;
      this.actions.steer(text);
    } else if (s.awaitingInput) {
      return;
    } else {
      this.actions.send(text);
    }
    this.input.value = '';
    this.pastes.clear();
    this.keys.reset();
  }

  private nearBottom(): boolean {
    const t = this.transcript;
    return t.scrollHeight - t.scrollTop - t.clientHeight < 48;
  }

  private endsWithNewUserMessage(prev: ChatState | undefined, state: ChatState): boolean {
    const last = state.items[state.items.length - 1];
    return last?.kind === 'user' && !prev?.items.includes(last);
  }

  // ── status line ─────────────────────────────────────────────────────
  private renderStatus(state: ChatState): void {
    const c = state.connection;
    this.connDot.className = `conn-dot conn-${c.connection}`;
    this.connText.textContent = CONNECTION_LABEL[c.connection];
    const offline = c.offline === true;
    this.offlineBadge.hidden = !offline;
    this.modelText.textContent = !offline && c.model ? c.model : '';
    this.modelText.hidden = offline || !c.model;
    // The reason matters when the connection is not up; when connected it stays in the tooltip.
    this.detailText.textContent = c.detail && c.connection !== 'connected' ? c.detail : '';
    this.detailText.hidden = !this.detailText.textContent;
    this.statusLine.title = c.detail ?? '';
    // The backend is up but its model endpoint failed its connection test: say so, never a green "Connected".
    const modelDown = c.connection === 'connected' && c.modelUnreachable !== undefined;
    this.connDot.classList.toggle('model-down', modelDown);
    if (modelDown) {
      this.connText.textContent = 'Model unreachable';
      this.detailText.textContent = c.modelUnreachable ?? '';
      this.detailText.hidden = false;
      this.statusLine.title = c.modelUnreachable ?? '';
    }
    this.runText.textContent = state.awaitingInput ? 'Awaiting your input' : state.run ? 'Working…' : '';
    this.runText.classList.toggle('awaiting', state.awaitingInput);
    const usage = state.threadUsage;
    this.threadUsageText.hidden = usage === null;
    this.threadUsageText.textContent = usage ? `Total ${describeUsage(usage)}` : '';
    this.threadUsageText.title = usage ? `This conversation so far: ${describeUsageInWords(usage)}` : '';
    this.agentUsageText.textContent = c.usage ?? '';
    this.agentUsageText.hidden = c.usage === undefined;
    this.agentUsageText.title = c.usage !== undefined ? 'How full the agent\'s context is, and what this conversation cost, as the agent reports it' : '';
  }

  // ── composer ────────────────────────────────────────────────────────
  private renderComposer(state: ChatState): void {
    const running = state.run !== null;
    if (state.awaitingInput && !this.input.disabled) this.inputHadFocus = document.activeElement === this.input;
    // During a run the box stays open for steering, even while a prompt waits (Enter only queues).
    this.input.disabled = state.awaitingInput && !running;
    if (!state.awaitingInput && this.inputHadFocus) {
      this.inputHadFocus = false;
      this.input.focus();
    }
    // A prompt shown in the chat is its own notice; the banner is for one in the editor (modal).
    this.banner.hidden = !state.awaitingInput || state.approval !== null;
    // During a run Stop takes Send's place.
    this.sendButton.hidden = running;
    this.sendButton.disabled = running || state.awaitingInput;
    this.stopButton.hidden = !running;
    this.stopButton.disabled = state.run?.stopRequested === true;
    this.stopButton.textContent = state.run?.stopRequested ? 'Stopping…' : 'Stop';
    this.transcript.setAttribute('aria-busy', String(running));
    this.renderAttachment(state);
    const retryDisabled = running || state.awaitingInput || !state.lastUserText;
    // Looked for only when something changed: walking a long thread's DOM on every streamed delta adds up.
    if (retryDisabled === this.retryDisabled && !this.retryAdded) return;
    this.retryDisabled = retryDisabled;
    this.retryAdded = false;
    for (const b of this.list.querySelectorAll<HTMLButtonElement>('button.retry')) b.disabled = retryDisabled;
  }

  private renderAttachment(state: ChatState): void {
    const shown = this.attachments.firstElementChild?.getAttribute('aria-label');
    const wanted = state.attachment ? `Attached selection: ${state.attachment.label}` : undefined;
    if (shown === wanted) return;
    this.attachments.replaceChildren(...(state.attachment ? [attachmentChip(state.attachment, () => {
      this.actions.removeAttachment();
      this.input.focus();
    })] : []));
    this.attachments.hidden = state.attachment === null;
  }

  // ── transcript ──────────────────────────────────────────────────────
  private renderItems(state: ChatState): void {
    this.emptyState.update(state);
    this.question.update(state);
    // The items at the start that are the very objects shown now are in place: a streamed delta
    // changes the last item, and the walk starts after the others (it took a long thread's length).
    const from = this.renderedItems ? unchangedPrefix(this.renderedItems, state.items) : 0;
    const shown = state.items.slice(from).filter((it) => !foldedAway(it, state));
    const ids = new Set(shown.map((it) => it.id));
    const maybeGone = this.renderedItems ? this.renderedItems.slice(from).map((it) => it.id) : [...this.rendered.keys()];
    for (const id of maybeGone) {
      const r = this.rendered.get(id);
      if (r && !ids.has(id)) {
        this.chunks.remove(r.el);
        this.rendered.delete(id);
      }
    }
    let ref = this.chunks.first();
    for (let i = from - 1; i >= 0; i--) {
      const kept = this.rendered.get(state.items[i].id);
      if (kept) {
        ref = this.chunks.next(kept.el);
        break;
      }
    }
    this.renderedItems = undefined;
    for (const [index, item] of shown.entries()) {
      this.buildingFarFromEnd = index < shown.length - EAGER_TAIL_ITEMS;
      const before = this.rendered.get(item.id)?.el;
      const el = this.elementFor(item);
      // A replaced element leaves its new one in its place: when that place was `ref`, move past it
      // (inserting before the detached old element threw, and every later render threw with it).
      if (el === ref || before === ref) ref = this.chunks.next(el);
      else this.chunks.insertBefore(el, ref);
    }
    this.renderedItems = state.items;
  }

  private elementFor(item: ChatItem): HTMLElement {
    const r = this.rendered.get(item.id);
    if (r && r.item === item) return r.el;
    if (r && r.item.kind === 'answer' && item.kind === 'answer') {
      this.patchAnswer(r.el, r.item, item);
      r.item = item;
      return r.el;
    }
    if (r && r.item.kind === 'tool' && item.kind === 'tool') {
      this.patchTool(r.el, r.item, item);
      r.item = item;
      return r.el;
    }
    const el = this.create(item);
    if (r) r.el.replaceWith(el);
    this.rendered.set(item.id, { item, el });
    return el;
  }

  private create(item: ChatItem): HTMLElement {
    switch (item.kind) {
      case 'user':
        return h('div', { class: 'msg user' }, h('div', { class: 'who' }, 'You'), ...(item.attachment ? [sentAttachment(item.attachment)] : []), userText(item.text), rewindControl(item.runId));
      case 'answer': {
        const el = h('div', { class: 'msg answer', 'data-item-id': item.id }, h('div', { class: 'who' }, 'Agent'), h('div', { class: 'markdown' }),
          h('div', { class: 'answer-actions' }, h('button', { type: 'button', class: 'copy-answer secondary', 'aria-label': 'Copy this answer' }, 'Copy')));
        this.patchAnswer(el, undefined, item);
        return el;
      }
      case 'tool':
        return this.createTool(item);
      case 'expansion':
        return h('div', { class: 'event expansion' },
          h('span', { class: 'event-icon', 'aria-hidden': 'true' }, '+'),
          h('span', {}, describeExpansion(item.group, item.tools, item.skill)));
      case 'notice':
        return h('div', { class: 'event notice' }, item.text);
      case 'usage': {
        const words = `This run used ${describeUsageInWords(item)}. This conversation so far: ${describeUsageInWords(item.thread)}.`;
        return h('div', { class: 'event usage', title: words },
          h('span', { 'aria-hidden': 'true' }, describeUsage(item)), h('span', { class: 'sr-only' }, words));
      }
      case 'error':
        this.retryAdded = true;
        return renderError(item);
    }
  }

  private patchAnswer(el: HTMLElement, prev: AnswerItem | undefined, item: AnswerItem): void {
    el.classList.toggle('streaming', item.streaming);
    const body = el.querySelector<HTMLElement>('.markdown');
    if (body && prev?.text !== item.text) {
      const render = (): void => { body.innerHTML = renderMarkdown(item.text); };
      if (this.lazyMarkdown && prev === undefined && !item.streaming && this.buildingFarFromEnd) this.lazyMarkdown.defer(body, item.text, render);
      else {
        this.lazyMarkdown?.cancel(body);
        render();
      }
    }
    if (item.truncated && !el.querySelector('.truncated')) {
      el.append(h('p', { class: 'truncated' }, 'The answer was too long; the rest is not shown.'));
    }
  }

  private createTool(item: ToolItem): HTMLElement {
    const details = h('details', { class: 'tool-card', open: item.expanded },
      h('summary', {},
        h('span', { class: 'card-line' },
          h('span', { class: 'status-dot', 'aria-hidden': 'true' }),
          h('span', { class: 'card-sentence' }),
          h('span', { class: 'tool-status' })),
        h('span', { class: 'card-line secondary' },
          h('span', { class: 'tool-name' }),
          h('span', { class: 'badge background-badge', hidden: true, title: BACKGROUND_TITLE }, 'Background'),
          h('span', { class: 'badge caller-badge', hidden: true, title: CALLER_TITLE }),
          h('span', { class: 'tool-args' }),
          h('span', { class: 'tool-meta' })),
        h('span', { class: 'card-line fold-note', hidden: true })),
      h('div', { class: 'card-body' }));
    details.addEventListener('toggle', () => {
      // A result left unbuilt while the card was closed is built as it opens.
      const shown = this.rendered.get(item.id)?.item;
      if (details.open && details.hasAttribute(DEFERRED_ATTR) && shown?.kind === 'tool') this.fillToolBody(details, shown);
      this.actions.toggleCard(item.id, details.open);
    });
    this.patchTool(details, undefined, item);
    return details;
  }

  private patchTool(el: HTMLElement, prev: ToolItem | undefined, item: ToolItem): void {
    el.className = `tool-card status-${item.status}${item.requestId !== undefined ? ' recorded' : ''}${item.background ? ' background' : ''}`;
    const review = reviewLabel(item);
    el.className += reviewClass(review);
    const set = (selector: string, text: string, title?: string): void => {
      const part = el.querySelector<HTMLElement>(selector);
      if (!part) return;
      part.textContent = text;
      if (title !== undefined) part.title = title;
    };
    set('.tool-name', item.toolName, item.group ? `${item.toolName} (group ${item.group})` : item.toolName);
    set('.tool-status', review ?? STATUS_LABEL[item.status]);
    const sentence = cardSentence(item);
    set('.card-sentence', sentence.text, sentence.text);
    set('.tool-args', item.argsSummary || '(no arguments)', item.argsSummary);
    // The sentence names the target: the clipped arguments stay in the details.
    el.querySelector<HTMLElement>('.tool-args')?.toggleAttribute('hidden', sentence.namesTarget);
    const executor = executorLabel(item);
    const meta = item.durationMs !== undefined ? `${executor} · ${formatDuration(item.durationMs)}` : executor;
    set('.tool-meta', meta, executorTitle(item));
    const badge = el.querySelector<HTMLElement>('.background-badge');
    if (badge) {
      badge.hidden = item.background !== true;
      badge.title = backgroundTitle(item.caller);
    }
    const caller = el.querySelector<HTMLElement>('.caller-badge');
    if (caller) {
      // textContent only: the name is the MCP client's own claim.
      caller.textContent = item.caller ?? '';
      caller.title = callerTitle(item.caller);
      caller.hidden = item.caller === undefined;
    }
    const note = this.state ? foldNote(item, this.state) : undefined;
    set('.fold-note', note ?? '');
    const noteEl = el.querySelector<HTMLElement>('.fold-note');
    if (noteEl) noteEl.hidden = note === undefined;
    // The state opened the card (an OpenDiff review arrived): show its body.
    if (prev && !prev.expanded && item.expanded && el instanceof HTMLDetailsElement) el.open = true;
    if (prev && prev.result === item.result && prev.details === item.details && prev.argsJson === item.argsJson && prev.status === item.status
      && prev.permissionNote === item.permissionNote && prev.announcedAs === item.announcedAs && prev.target === item.target
      && prev.review === item.review && !(el.hasAttribute(DEFERRED_ATTR) && item.expanded)) return;
    this.fillToolBody(el, item);
  }

  private fillToolBody(el: HTMLElement, item: ToolItem): void {
    const defer = defersResult(item, el instanceof HTMLDetailsElement && el.open, this.virtualised);
    el.toggleAttribute(DEFERRED_ATTR, defer);
    el.querySelector<HTMLElement>('.card-body')?.replaceChildren(...this.toolBody(item, defer));
  }

  /** `deferLarge`: the card is closed, its long result parts wait until it opens. */
  private toolBody(item: ToolItem, deferLarge: boolean): Node[] {
    const nodes: Node[] = [];
    const review = renderReview(item, this.actions, this.reviewReasons);
    if (review) nodes.push(review);
    const kept = renderKeptChange(item, this.actions);
    if (kept) nodes.push(kept);
    if (item.announcedAs !== undefined) {
      nodes.push(h('p', { class: 'announced-mismatch' }, `The backend announced this call as ${item.announcedAs}; your editor ran ${item.toolName}.`));
    }
    if (item.background) nodes.push(h('p', { class: 'background-note' }, BACKGROUND_TITLE));
    if (item.permissionNote) nodes.push(h('p', { class: 'permission-note' }, item.permissionNote));
    if (item.target) nodes.push(h('p', { class: 'card-target' }, h('span', { class: 'section-label' }, 'Target: '), item.target));
    if (item.details) nodes.push(h('p', { class: 'card-details' }, item.details));
    nodes.push(h('div', { class: 'section-label' }, 'Arguments'));
    nodes.push(h('pre', { tabindex: '0' }, h('code', { class: 'language-json' }, item.argsJson)));
    // The kept change says what the result's JSON would (the decision, the hunks), as a diff.
    if (kept) return nodes;
    if (item.result.length > 0) {
      nodes.push(h('div', { class: 'section-label' }, 'Result'));
      for (const part of item.result) if (!deferLarge || !isLargePart(part)) nodes.push(this.resultPart(part));
    } else if (item.status === 'succeeded') {
      // Only a call that ran returns content: a denied, failed or cancelled one says why in its details.
      nodes.push(h('div', { class: 'section-label' }, 'Result'), h('p', { class: 'muted' }, 'No content.'));
    }
    return nodes;
  }

  private resultPart(part: ResultPart): Node {
    switch (part.kind) {
      case 'text':
        return h('pre', { class: 'result-text', tabindex: '0' }, part.text);
      case 'json':
        return h('pre', { tabindex: '0' }, h('code', { class: 'language-json' }, part.text));
      case 'image': {
        if (part.data === null || !isInlineImageType(part.mimeType)) {
          return h('p', { class: 'muted' }, `${describeBinary(part.byteLength, part.mimeType)} (image no longer kept)`);
        }
        const label = `${part.filename ?? 'Image'} (${describeBinary(part.byteLength, part.mimeType)})`;
        const img = h('img', { class: 'result-image', alt: label });
        img.src = `data:${part.mimeType};base64,${part.data}`;
        return h('figure', { class: 'result-figure' }, img, h('figcaption', {}, label));
      }
      case 'binary':
        return h('p', { class: 'muted binary' }, `${part.filename ? `${part.filename}: ` : ''}${describeBinary(part.byteLength, part.mimeType)}`);
    }
  }
}
