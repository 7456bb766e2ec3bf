/**
 * The chat's threads on the extension side: the thread index (src/vscode/chat/threadIndex.ts) in this
 * workspace's storage folder, kept in step with the chat view. It answers the view's requests
 * (switch, rename, delete, keep a transcript), tells the view which thread to show, and tells the
 * backend to forget a thread the user deleted or the caps dropped. Messages are sent with
 * `currentId`; the backend keeps (or reloads) each thread's history by that id.
 */
import * as vscode from 'vscode';
import { ThreadIndex, type ThreadMeta } from './threadIndex';
import { TranscriptCopy } from './transcriptCopy';
import { MAX_LISTED_THREADS, type ChatThreadSummary } from '../../protocol/webview';
import type { ChatViewProvider, ThreadRequest } from './chatView';

export interface ChatThreadsOptions {
  /** The folder for the index and transcripts (created when missing). */
  dir: string;
  chat: ChatViewProvider;
  log: Pick<vscode.LogOutputChannel, 'warn'>;
  /** Tells the backend to drop a thread's history and tool state; not connected is fine. */
  forgetThread(threadId: string): void;
  /** The thread id an older version kept, adopted as the first thread. */
  adoptId?: string;
}

export class ChatThreads implements vscode.Disposable {
  private readonly index: ThreadIndex;
  private readonly subscription: vscode.Disposable;
  /** The shown thread's transcript as the view last sent it, patched item by item. */
  private readonly transcript = new TranscriptCopy();

  constructor(private readonly options: ChatThreadsOptions) {
    this.index = ThreadIndex.open(options.dir, {
      ...(options.adoptId !== undefined ? { adoptId: options.adoptId } : {}),
      onWriteError: (e) => options.log.warn(`Chat history: could not save (${e.message})`),
    });
    this.subscription = options.chat.onDidThreadRequest((r) => this.handle(r));
    this.publish([]);
  }

  /** The thread user messages go to. */
  get currentId(): string {
    return this.index.current.id;
  }

  /** The user sent `text` in the current thread: it moves to the top, and takes its title from the first message. */
  noteUserMessage(text: string): void {
    this.index.noteUserMessage(this.currentId, text);
    this.publish([]);
  }

  /** New Chat: a new current thread (the old one stays in the list), shown empty. */
  newChat(): void {
    const { thread, dropped } = this.index.create();
    this.publish(dropped);
    this.options.chat.showThread(thread.id, undefined);
  }

  private handle(request: ThreadRequest): void {
    switch (request.type) {
      case 'shown':
        // Another thread, or an older copy of this one than the host keeps: show the host's.
        if (request.threadId !== this.currentId || this.index.current.transcriptSavedAt > (request.savedAt ?? 0)) void this.show(this.currentId);
        break;
      case 'switchThread':
        if (this.index.switchTo(request.threadId)) {
          this.publish([]);
          void this.show(request.threadId);
        }
        break;
      case 'renameThread':
        if (this.index.rename(request.threadId, request.title)) this.publish([]);
        break;
      case 'deleteThread': {
        const wasCurrent = request.threadId === this.currentId;
        if (!this.index.delete(request.threadId)) break;
        this.transcript.forget(request.threadId);
        this.options.forgetThread(request.threadId);
        this.publish([]);
        if (wasCurrent) void this.show(this.currentId);
        break;
      }
      case 'transcriptPatch': {
        const patched = this.transcript.apply(request);
        if (!patched.ok) {
          // Nothing is half-applied: the copy stays as it was, and the view sends the whole transcript.
          this.options.log.warn(`Chat history: refused a transcript change (${patched.code}: ${patched.message}); asking the view for the whole transcript`);
          if (request.base !== null) this.options.chat.resyncTranscript(request.threadId);
          break;
        }
        const dropped = this.index.saveTranscript(request.threadId, patched.json, request.savedAt);
        if (dropped === undefined) this.options.log.warn(`Chat history: a transcript of ${patched.json.length} characters was not saved (too large, or its thread is gone)`);
        else if (dropped.length > 0) this.publish(dropped);
        break;
      }
    }
  }

  /** Loads the thread's transcript and shows it, unless the user moved on meanwhile. */
  private async show(threadId: string): Promise<void> {
    const transcript = await this.index.loadTranscript(threadId);
    if (threadId === this.currentId) this.options.chat.showThread(threadId, transcript);
  }

  private publish(dropped: ThreadMeta[]): void {
    for (const t of dropped) this.options.forgetThread(t.id);
    const notice = dropped.length === 0 ? undefined
      : `Removed the ${dropped.length === 1 ? 'oldest conversation' : `${dropped.length} oldest conversations`} from the history to stay within its limits: ${dropped.map((t) => `“${t.title}”`).join(', ')}`;
    const threads = this.index.list().slice(0, MAX_LISTED_THREADS).map(toSummary);
    this.options.chat.setThreads(this.currentId, threads, notice);
  }

  /** Resolves when the index and transcripts are on disk. */
  flush(): Promise<void> {
    return this.index.flush();
  }

  dispose(): void {
    this.subscription.dispose();
  }
}

function toSummary(t: ThreadMeta): ChatThreadSummary {
  return { id: t.id, title: t.title, createdAt: t.createdAt, updatedAt: t.updatedAt };
}
