/**
 * The chat's change list of each run: every file a call of the run wrote, created or deleted (told by
 * the dispatchers, src/core/recordingHost.ts, a terminal command's too where the watcher saw them),
 * with Keep, Undo and Open Diff per run, file and hunk (a file without an earlier copy: Keep and Open).
 * The record (src/core/runChanges.ts) is kept in the extension's storage, so the list comes back
 * after a window reload. Undo goes through the one guarded write (guardedWrite.ts): nothing is
 * written unless the file still holds what the run left; otherwise the user is told, with the code.
 * The view names a run and a file; only files the record holds are ever read or written.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { CodedError, ErrorCode, type RunEvent } from '../../protocol';
import { readProtectedPatterns } from '../settings/config';
import { fileWorkspaceFolders } from '../host/workspaceHost';
import type { WebviewToHost } from '../../protocol/webview';
import type { RecordedWrite } from '../../core/recordingHost';
import { RunSpans } from '../../core/commandWrites';
import { checkRecordedFile, type RunChangeLog, type PlannedWrite, type RunChangeSet, type RunRef } from '../../core/runChanges';
import { listedRunChanges, readSavedRunChanges } from '../../core/runChangesSaved';
import { safe, uiText } from '../../core/uiText';
import type { ChatViewProvider } from '../chat/chatView';
import { currentText, writeIfUnchanged } from './guardedWrite';
import { ProposalFileSystem } from './proposalFileSystem';
import * as ui from '../ui';

export const RUN_BEFORE_SCHEME = 'client-tools-run-before';
const SAVE_DELAY_MS = 300;

type RunChangeRequest = Extract<WebviewToHost, { type: 'runChange' }>;

export class RunChangeList implements vscode.Disposable {
  private readonly log: RunChangeLog;
  /** The run each thread has in progress (from the run events). */
  private readonly activeRuns = new Map<string, string>();
  /** When each recent run of a thread started and ended, for a command's late report. */
  private readonly spans = new RunSpans();
  private readonly befores = new ProposalFileSystem();
  private readonly disposables: vscode.Disposable[] = [];
  private saveTimer: ReturnType<typeof setTimeout> | undefined;
  private requests: Promise<void> = Promise.resolve();

  constructor(
    private readonly file: string,
    private readonly chat: ChatViewProvider,
    private readonly logger: Pick<vscode.LogOutputChannel, 'warn'>,
  ) {
    const saved = readSavedRunChanges(file);
    if (saved.ignored !== undefined) logger.warn(`Run changes: ignored ${file}: ${saved.ignored}`);
    this.log = saved.log;
    this.disposables.push(
      this.befores,
      vscode.workspace.registerFileSystemProvider(RUN_BEFORE_SCHEME, this.befores, { isCaseSensitive: true, isReadonly: true }),
      // One request at a time: an Undo awaits its writes, and a Keep landing meanwhile must not pull its run away.
      chat.onDidRunChangeRequest((request) => {
        this.requests = this.requests.then(() => this.handle(request));
      }),
    );
    this.publish();
  }

  /** Follows which run each thread has in progress: a write is the run's only while it runs. */
  noteRunEvent(event: RunEvent): void {
    if (event.type === 'runStarted') {
      this.activeRuns.set(event.threadId, event.runId);
      this.spans.started(event.threadId, event.runId, Date.now());
    } else if (event.type === 'runFinished' || event.type === 'runError') {
      this.spans.ended(event.threadId, event.runId, Date.now());
      if (this.activeRuns.get(event.threadId) === event.runId) this.activeRuns.delete(event.threadId);
    }
  }

  /**
   * A call wrote a file (src/core/dispatcher.ts `onFileWritten`); kept when the call belongs to a run
   * in progress. A terminal command's writes arrive after the call answered: they go to the run that
   * was in progress when the call started, even if it has ended since.
   */
  fileWritten(write: RecordedWrite, call: { threadId: string | undefined; startedAt?: number }): void {
    const runId = call.threadId === undefined ? undefined : write.byCommand && call.startedAt !== undefined ? this.spans.runAt(call.threadId, call.startedAt) : this.activeRuns.get(call.threadId);
    if (runId === undefined || call.threadId === undefined) return;
    const ref = { runId, threadId: call.threadId };
    this.log.recordWrite(ref, write, vscode.workspace.asRelativePath(write.file));
    this.changed();
  }

  /** Whether the thread has a run in progress. */
  running(threadId: string): boolean {
    return this.activeRuns.has(threadId);
  }

  /** The thread's recorded runs, oldest first (Rewind's checkpoints, src/vscode/reviews/rewind.ts). */
  threadRuns(threadId: string): readonly RunChangeSet[] {
    return this.log.runsOf(threadId);
  }

  /** Rewind restored what these runs changed: their lists go. */
  forgetRuns(threadId: string, runIds: readonly string[]): void {
    this.log.forgetRuns(threadId, runIds);
    this.changed();
  }

  /** The check a recorded file passes before it is read or written (inside the workspace, not protected). */
  checkFile(file: string): Promise<void> {
    return actionableFile(file);
  }

  /** The thread was deleted: its runs' lists go with it. */
  forgetThread(threadId: string): void {
    this.log.forgetThread(threadId);
    this.changed();
  }

  async handle(request: RunChangeRequest): Promise<void> {
    const ref: RunRef = { runId: request.runId, threadId: request.threadId };
    try {
      // The record is a file in the extension's storage: what it names is acted on only where a tool could write it.
      if (request.file !== undefined) await actionableFile(request.file);
      if (request.action === 'open') {
        if (request.file !== undefined) await this.open(ref, request.file);
      } else if (request.action === 'keep') {
        if (request.file === undefined) this.log.keepRun(ref);
        else if (request.hunk === undefined) this.log.keepFile(ref, request.file);
        else this.log.keepHunk(ref, request.file, request.hunk);
      } else {
        await this.undo(ref, request.file, request.hunk);
      }
    } catch (e) {
      const code = e instanceof CodedError ? e.code : ErrorCode.Internal;
      const message = e instanceof Error ? e.message : String(e);
      void ui.showWarning(safe`Client Tools: ${uiText(message)} (${uiText(code)})`);
    }
    this.changed();
  }

  dispose(): void {
    if (this.saveTimer !== undefined) {
      clearTimeout(this.saveTimer);
      this.saveNow();
    }
    for (const d of this.disposables.splice(0)) d.dispose();
  }

  /** Undo of a run (every file), a file or a hunk; each file written only while it holds what the run left. */
  private async undo(ref: RunRef, file: string | undefined, hunk: number | undefined): Promise<void> {
    const run = this.log.runsOf(ref.threadId).find((r) => r.runId === ref.runId);
    // Undo all leaves out what has no earlier copy (the list says so on its row).
    const files = file !== undefined ? [file] : (run?.files.filter((f) => !f.noEarlierCopy).map((f) => f.file) ?? []);
    if (files.length === 0) throw new CodedError(ErrorCode.NotFound, `no changes are recorded for run ${ref.runId}`);
    const refused: string[] = [];
    for (const f of files) {
      try {
        await actionableFile(f);
      } catch (e) {
        if (files.length === 1) throw e;
        refused.push(e instanceof Error ? e.message : String(e));
        continue;
      }
      const uri = vscode.Uri.file(f);
      const now = await currentText(uri);
      let planned: PlannedWrite;
      try {
        planned = hunk === undefined ? this.log.planUndoFile(ref, f, now) : this.log.planUndoHunk(ref, f, hunk, now);
      } catch (e) {
        if (files.length === 1) throw e;
        refused.push(e instanceof Error ? e.message : String(e));
        continue;
      }
      const outcome = await writeIfUnchanged(uri, now, planned.text);
      if (outcome === 'written') this.log.written(ref, planned);
      else refused.push(`${vscode.workspace.asRelativePath(f)} was ${outcome === 'changed' ? 'edited meanwhile' : 'not written by the editor'}`);
    }
    if (refused.length > 0) throw new CodedError(ErrorCode.TargetChanged, `not undone: ${refused.join('; ')}`);
  }

  /** Opens a file's change: a diff from the text before the run to the file now (a created file opens as itself). */
  private async open(ref: RunRef, file: string): Promise<void> {
    const change = this.log.runsOf(ref.threadId).find((r) => r.runId === ref.runId)?.files.find((f) => f.file === file);
    if (!change) throw new CodedError(ErrorCode.NotFound, `the run's changes name no such file`);
    const uri = vscode.Uri.file(change.file);
    if (change.noEarlierCopy && change.after === null) throw new CodedError(ErrorCode.NotFound, `${change.path} was deleted by a terminal command and no earlier copy was kept: there is nothing to show`);
    if (change.before === null) {
      await vscode.window.showTextDocument(uri, { preview: true });
      return;
    }
    const label = vscode.workspace.asRelativePath(change.file);
    const before = vscode.Uri.from({ scheme: RUN_BEFORE_SCHEME, authority: encodeURIComponent(ref.runId).slice(0, 200), path: `/${label.replace(/^\/+/, '')}` });
    this.befores.put(before, change.before);
    const right = change.after === null ? vscode.Uri.from({ scheme: RUN_BEFORE_SCHEME, authority: 'deleted', path: before.path }) : uri;
    if (change.after === null) this.befores.put(right, '');
    await vscode.commands.executeCommand('vscode.diff', before, right, `${label}: before the run ↔ ${change.after === null ? 'deleted' : 'now'}`, { preview: true });
  }

  private changed(): void {
    this.publish();
    this.saveTimer ??= setTimeout(() => this.saveNow(), SAVE_DELAY_MS);
  }

  private publish(): void {
    this.chat.postRunChanges(listedRunChanges(this.log, (file) => vscode.workspace.asRelativePath(file)));
  }

  private saveNow(): void {
    this.saveTimer = undefined;
    try {
      fs.mkdirSync(path.dirname(this.file), { recursive: true });
      const temp = `${this.file}.${process.pid}.tmp`;
      fs.writeFileSync(temp, JSON.stringify(this.log.toJSON()));
      fs.renameSync(temp, this.file);
    } catch (e) {
      this.logger.warn(`Run changes: could not save ${this.file}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}

/** The record's file, checked where the user acts on it (src/core/runChanges.ts checkRecordedFile). */
async function actionableFile(file: string): Promise<void> {
  await checkRecordedFile(file, fileWorkspaceFolders(), readProtectedPatterns());
}
