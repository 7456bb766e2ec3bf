import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { isFinalStatus, type CallRecord } from '../../core/callRecord';
import { assertNever, type EditorContext, type RunEvent } from '../../protocol';
import { chatHtml } from './chatHtml';
import { MAX_USER_TEXT, receiveFromWebview, type WebviewToHost, type ChatAction, type ChatAgentOption, type ChatApproval, type ChatAttachment, type ChatReview, type ChatRunChanges, type ChatStatus, type ChatThreadSummary, type HostToWebview } from '../../protocol/webview';
import { toChatCallRecord, toChatRunEvent } from './chatBridge';
import { HostOutbox } from './pendingHostMessages';
import { CardStream } from './cardStream';
import { openPathFromChat } from './openPathFromChat';
import { selectionLabel } from './editorContextSummary';
import { Commands, Views } from '../ids';
import { readShowExpansionSteps } from '../settings/config';

const MAX_ERROR_TEXT = 10_000;

/** The commands the chat's own buttons may run, by the action the view names. */
const ACTION_COMMANDS: Record<ChatAction, string> = {
  selectModel: Commands.selectModel,
  connect: Commands.connect,
  useOfflineDemo: Commands.useOfflineDemo,
  showLog: Commands.showLog,
};

/** What the chat's settings say about how it shows things; read fresh on every `ready`. */
function displaySettings(): Extract<HostToWebview, { type: 'displaySettings' }> {
  return { type: 'displaySettings', showExpansionSteps: readShowExpansionSteps() };
}

const toBase64 = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');

/** What the view asks of the thread index (src/vscode/chat/threads.ts answers). */
export type ThreadRequest =
  | { type: 'shown'; threadId: string | undefined; savedAt: number | undefined }
  | Extract<WebviewToHost, { type: 'switchThread' | 'renameThread' | 'deleteThread' | 'transcriptPatch' }>;

/** What a review card asks of the diff reviews. */
export type ReviewRequest = Extract<WebviewToHost, { type: 'decideReview' | 'reviewHunk' | 'keptChange' }>;
/** A message typed during the run `runId` (`steer`), or one taken back (`withdrawSteer`). */
export type SteerRequest = Extract<WebviewToHost, { type: 'steer' | 'withdrawSteer' }> & { runId: string };

/**
 * The sidebar chat (`clientTools.chat`). It renders what it is told and reports what the user does;
 * the code that talks to the backend listens to its events and feeds it run events.
 *
 * The webview is not kept alive while hidden: it saves its own state and is rebuilt when shown
 * again. On every `ready` the host replays what each message's declaration says
 * (`HOST_MESSAGE_REPLAY`, src/protocol/webview.ts): the latest of each `latest` message, then the
 * `queued` ones that waited (text deltas of one run merged), then `sync`.
 *
 * Behaviour of its own: a message sent from the view is echoed into the transcript before
 * `onDidSend` fires, and New Chat in the view clears the view itself before `onDidNewChat` fires.
 */
export class ChatViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  private readonly sendEmitter = new vscode.EventEmitter<{ text: string; context: EditorContext | undefined }>();
  private readonly stopEmitter = new vscode.EventEmitter<void>();
  private readonly newChatEmitter = new vscode.EventEmitter<void>();
  private readonly retryEmitter = new vscode.EventEmitter<{ text: string; context: EditorContext | undefined }>();
  private readonly answerEmitter = new vscode.EventEmitter<{ recordId: string; index: number | null }>();
  private readonly steerEmitter = new vscode.EventEmitter<SteerRequest>();
  private readonly compactEmitter = new vscode.EventEmitter<void>();
  /** The user pressed Compact now. */
  readonly onDidCompact = this.compactEmitter.event;
  /** The user typed a message while the run `runId` works (queue it for its next tool boundary), or took one back. */
  readonly onDidSteer = this.steerEmitter.event;
  /** The user sent a message (already echoed in the view), with the selection attached to it if any. */
  readonly onDidSend = this.sendEmitter.event;
  /** The user pressed Stop: cancel the current run. */
  readonly onDidStop = this.stopEmitter.event;
  /** The user pressed New Chat (the view already cleared itself): reset the thread. */
  readonly onDidNewChat = this.newChatEmitter.event;
  /** The user pressed Retry on an error: re-send the last user message the view shows, with the selection it was sent with. */
  readonly onDidRetry = this.retryEmitter.event;
  /** The user answered (or gave up) a ShowMessage question in the chat. */
  readonly onDidAnswerQuestion = this.answerEmitter.event;
  private readonly threadEmitter = new vscode.EventEmitter<ThreadRequest>();
  /**
   * The view asked about threads: switch, rename, delete (confirmed in the view), keep a transcript,
   * or `shown`: a (re)built view shows this thread (undefined: none), to be corrected if it is not current.
   */
  readonly onDidThreadRequest = this.threadEmitter.event;
  private readonly reviewEmitter = new vscode.EventEmitter<ReviewRequest>();
  /** Accept, Reject or a hunk kept or taken back on an OpenDiff review card (src/vscode/reviews/reviewBridge.ts answers). */
  readonly onDidReviewRequest = this.reviewEmitter.event;
  private readonly approvalEmitter = new vscode.EventEmitter<Extract<WebviewToHost, { type: 'approvalAnswer' }>>();
  /** The user answered the approval the chat shows (src/vscode/prompts/chatPrompts.ts checks it is the open one). */
  readonly onDidAnswerApproval = this.approvalEmitter.event;
  private readonly pickAgentEmitter = new vscode.EventEmitter<string>();
  /** The user picked an agent in the chat (`BACKEND_AGENT` for the chat's own backend). */
  readonly onDidPickAgent = this.pickAgentEmitter.event;
  private readonly visibilityEmitter = new vscode.EventEmitter<boolean>();
  /** The view was shown (true) or hidden (false). */
  readonly onDidChangeVisibility = this.visibilityEmitter.event;

  private readonly runChangeEmitter = new vscode.EventEmitter<Extract<WebviewToHost, { type: 'runChange' }>>();
  private readonly rewindEmitter = new vscode.EventEmitter<Extract<WebviewToHost, { type: 'rewind' }>>();
  /** Rewind to here on a user message (src/vscode/reviews/rewind.ts). */
  readonly onDidRewind = this.rewindEmitter.event;
  /** Keep, Undo or Open on a run's change list (src/vscode/reviews/runChangeList.ts). */
  readonly onDidRunChangeRequest = this.runChangeEmitter.event;
  private readonly disposables: vscode.Disposable[] = [this.rewindEmitter, this.runChangeEmitter, this.sendEmitter, this.stopEmitter, this.newChatEmitter, this.retryEmitter, this.threadEmitter, this.approvalEmitter, this.visibilityEmitter, this.answerEmitter, this.pickAgentEmitter, this.steerEmitter, this.compactEmitter];
  private viewDisposables: vscode.Disposable[] = [];
  private view: vscode.WebviewView | undefined;
  private ready = false;
  /** What a view that says `ready` gets again, by each message's declared replay. */
  private readonly outbox = new HostOutbox([
    { type: 'status', status: { connection: 'disconnected' } },
    { type: 'awaitingInput', open: false },
    { type: 'approval', prompt: null },
  ]);
  private activeRunId: string | null = null;
  /** A client call's card from its record alone: what the backend's events for it may add is folded in there. */
  private readonly cards = new CardStream();
  /** Calls the extension is executing now (their records are not final yet). */
  private readonly openCalls = new Set<string>();

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly log: Pick<vscode.LogOutputChannel, 'warn'>,
  ) {}

  /** Creates the provider and registers it for `clientTools.chat`; disposing it unregisters. */
  static register(extensionUri: vscode.Uri, log: Pick<vscode.LogOutputChannel, 'warn'>): ChatViewProvider {
    const provider = new ChatViewProvider(extensionUri, log);
    provider.disposables.push(vscode.window.registerWebviewViewProvider(Views.chat, provider, {
      webviewOptions: { retainContextWhenHidden: false },
    }));
    provider.post(displaySettings());
    provider.disposables.push(vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('clientTools.chat.showExpansionSteps')) provider.post(displaySettings());
    }));
    return provider;
  }

  resolveWebviewView(view: vscode.WebviewView, _context: vscode.WebviewViewResolveContext, _token: vscode.CancellationToken): void {
    this.releaseView();
    this.view = view;
    this.ready = false;
    const media = vscode.Uri.joinPath(this.extensionUri, 'media');
    view.webview.options = { enableScripts: true, localResourceRoots: [media] };
    view.webview.html = chatHtml({
      cspSource: view.webview.cspSource,
      nonce: randomBytes(18).toString('base64'),
      scriptUri: view.webview.asWebviewUri(vscode.Uri.joinPath(media, 'chat.js')).toString(),
      styleUri: view.webview.asWebviewUri(vscode.Uri.joinPath(media, 'chat.css')).toString(),
    });
    this.viewDisposables.push(
      view.webview.onDidReceiveMessage((message: unknown) => this.receive(message)),
      // A hidden view's document is thrown away; queue until the rebuilt page says `ready`.
      view.onDidChangeVisibility(() => {
        if (!view.visible) this.ready = false;
        this.visibilityEmitter.fire(view.visible);
      }),
      view.onDidDispose(() => {
        if (this.view === view) this.releaseView();
      }),
    );
  }

  /** A run event; `agent` names the ACP agent whose run it is (its own tool cards carry the name). */
  postRunEvent(event: RunEvent, agent?: string): void {
    if (event.type === 'runStarted') this.activeRunId = event.runId;
    else if ((event.type === 'runFinished' || event.type === 'runError') && event.runId === this.activeRunId) this.activeRunId = null;
    for (const m of this.cards.runEvent(toChatRunEvent(event, toBase64, agent))) this.post(m);
  }

  /** The agents the picker offers and the one the shown thread talks to. */
  setAgents(agents: ChatAgentOption[], current: string): void {
    this.post({ type: 'agents', agents: agents.slice(0, 64), current });
  }

  /**
   * A call the extension executed changed. Client tool cards are built from these records alone
   * (src/vscode/chat/cardStream.ts), background calls included.
   */
  postCallRecord(record: CallRecord): void {
    if (isFinalStatus(record.status)) this.openCalls.delete(record.recordId);
    else this.openCalls.add(record.recordId);
    for (const m of this.cards.record(toChatCallRecord(record, toBase64))) this.post(m);
  }

  /** Shows a user message that was sent on the user's behalf (e.g. Ask About Selection), naming the selection sent with it. */
  showUserMessage(text: string, context?: EditorContext): void {
    const attachment = selectionLabel(context);
    if (text.trim()) this.post({ type: 'userMessage', text: text.slice(0, MAX_USER_TEXT), ...(attachment ? { attachment } : {}), ...(context ? { context } : {}) });
  }

  setStatus(status: ChatStatus): void {
    this.post({ type: 'status', status: {
      connection: status.connection,
      ...(status.model !== undefined ? { model: status.model.slice(0, 200) } : {}),
      ...(status.offline !== undefined ? { offline: status.offline } : {}),
      ...(status.detail !== undefined ? { detail: status.detail.slice(0, 1000) } : {}),
      ...(status.modelUnreachable !== undefined ? { modelUnreachable: status.modelUnreachable.slice(0, 1000) } : {}),
      ...(status.usage !== undefined ? { usage: status.usage.slice(0, 200) } : {}),
    } });
  }

  /** Whether the chat is on screen now (a prompt shown in it can be seen). */
  get visible(): boolean {
    return this.view?.visible === true;
  }

  /** Shows this permission prompt in the chat (null: none is open). */
  setApproval(prompt: ChatApproval | null): void {
    this.post({ type: 'approval', prompt });
  }

  /** A permission prompt opened (true) or closed (false); the composer waits while it is open. */
  setAwaitingInput(open: boolean): void {
    this.post({ type: 'awaitingInput', open });
  }

  showError(message: string, code: string, retryable = true): void {
    this.post({ type: 'error', message: message.slice(0, MAX_ERROR_TEXT) || 'Unknown error', code: code.slice(0, 64) || 'INTERNAL', retryable });
  }

  /** Clears the transcript (New Chat from the command or the view title). */
  reset(): void {
    this.post({ type: 'reset' });
  }

  /** The history list changed; `notice` (threads dropped by the caps) is shown in the transcript. */
  setThreads(currentId: string, threads: ChatThreadSummary[], notice?: string): void {
    this.post({ type: 'threads', currentId, threads });
    if (notice) this.post({ type: 'notice', text: notice.slice(0, 1000) });
  }

  /** Replaces the transcript with thread `threadId`'s saved one (undefined: an empty thread). */
  showThread(threadId: string, transcript: unknown): void {
    this.post({ type: 'showThread', threadId, ...(transcript !== undefined ? { transcript } : {}) });
  }

  /** The host's copy of thread `threadId`'s transcript took no patch: the view sends it whole. */
  resyncTranscript(threadId: string): void {
    this.post({ type: 'transcriptResync', threadId });
  }

  /** An OpenDiff review opened, changed or ended: its card shows it. */
  postRunChanges(runs: ChatRunChanges[]): void {
    this.post({ type: 'runChanges', runs });
  }

  /** A line in the transcript (at most 1,000 characters). */
  postNotice(text: string): void {
    this.post({ type: 'notice', text: text.slice(0, 1000) });
  }

  /** Rewind to here was done: the view drops run `runId`'s message and what followed it. */
  postRewound(threadId: string, runId: string): void {
    this.post({ type: 'rewound', threadId, runId });
  }

  postReview(review: ChatReview): void {
    this.post({ type: 'diffReview', review });
  }

  /** Puts the keyboard in the view's message box (Focus Chat); waits for the view to be listening. */
  focusInput(): void {
    this.post({ type: 'focusInput' });
  }

  /** Attaches editor text to the next message as a chip in the view (Ask About Selection). */
  attachSelection(attachment: ChatAttachment): void {
    this.post({ type: 'attachSelection', attachment });
  }

  /** Opens the history list in the view (the view title's History button). */
  showHistory(): void {
    this.post({ type: 'showHistory' });
  }

  private receive(raw: unknown): void {
    const received = receiveFromWebview(raw);
    if (!received.ok) {
      this.log.warn(`Chat view: refused a message from the webview (${received.error.code}: ${received.error.message})`);
      return;
    }
    const message = received.message;
    switch (message.type) {
      case 'ready':
        this.ready = true;
        this.flush();
        this.threadEmitter.fire({ type: 'shown', threadId: message.threadId, savedAt: message.savedAt });
        break;
      case 'switchThread':
      case 'renameThread':
      case 'deleteThread':
      case 'transcriptPatch':
        this.threadEmitter.fire(message);
        break;
      case 'send':
        this.showUserMessage(message.text, message.context);
        this.sendEmitter.fire({ text: message.text, context: message.context });
        break;
      case 'stop':
        this.stopEmitter.fire();
        break;
      case 'newChat':
        this.newChatEmitter.fire();
        break;
      case 'retry':
        this.retryEmitter.fire({ text: message.text, context: message.context });
        break;
      case 'copy':
        void vscode.env.clipboard.writeText(message.text);
        break;
      case 'decideReview':
      case 'reviewHunk':
      case 'keptChange':
        this.reviewEmitter.fire(message);
        break;
      case 'openPath':
        void openPathFromChat(message.path, message.line);
        break;
      case 'approvalAnswer':
        this.approvalEmitter.fire(message);
        break;
      case 'answerQuestion':
        this.answerEmitter.fire({ recordId: message.recordId, index: message.index });
        break;
      case 'pickAgent':
        this.pickAgentEmitter.fire(message.name);
        break;
      case 'steer':
      case 'withdrawSteer':
        // Only while a run the host knows of works: the view's idea of the run may be stale.
        if (this.activeRunId !== null) this.steerEmitter.fire({ ...message, runId: this.activeRunId });
        break;
      case 'compact':
        if (this.activeRunId === null) this.compactEmitter.fire();
        break;
      case 'runChange':
        this.runChangeEmitter.fire(message);
        break;
      case 'rewind':
        this.rewindEmitter.fire(message);
        break;
      case 'action':
        void vscode.commands.executeCommand(ACTION_COMMANDS[message.action]);
        break;
      case 'refusedMessage':
        this.log.warn(`Chat view: the webview refused a message from the extension (${message.code}: ${message.message})`);
        break;
      default:
        assertNever(message, 'message from the chat view');
    }
  }

  private post(message: HostToWebview): void {
    const listening = this.ready ? this.view : undefined;
    const droppedBefore = this.outbox.dropped;
    this.outbox.keep(message, listening !== undefined);
    if (listening) {
      void listening.webview.postMessage(message);
      return;
    }
    if (droppedBefore === 0 && this.outbox.dropped > 0) {
      this.log.warn('Chat view: too many messages queued while the view was hidden; dropping the oldest');
    }
  }

  /** What a view that says `ready` gets: the latest of each `latest` message, the queue, then `sync`. */
  private flush(): void {
    const view = this.view;
    if (!view) return;
    const messages: HostToWebview[] = [
      ...this.outbox.replay(),
      { type: 'sync', activeRunId: this.activeRunId, openCallIds: [...this.openCalls] },
    ];
    for (const m of messages) void view.webview.postMessage(m);
  }

  private releaseView(): void {
    for (const d of this.viewDisposables) d.dispose();
    this.viewDisposables = [];
    this.view = undefined;
    this.ready = false;
  }

  dispose(): void {
    this.releaseView();
    for (const d of this.disposables) d.dispose();
    this.disposables.length = 0;
    this.reviewEmitter.dispose();
  }
}
