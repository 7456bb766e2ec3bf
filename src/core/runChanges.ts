/**
 * The changes of a run: for every file a run's tool calls wrote, created or deleted, the text before
 * the run's first write and the text its last write left. Keep and Undo work per file and per hunk
 * (hunks between the two texts, src/core/hunkReview.ts); an Undo is planned here from the file's
 * current text and refused with a code unless the file still holds what the run wrote. Pure data: the
 * editor side reads and writes the files and keeps the log on disk (src/vscode/reviews/runChangeList.ts).
 */
import { z } from 'zod';
import { CodedError, ErrorCode } from '../protocol';
import { cardHunks, headerOf, hunkReview, withHunk } from './hunkReview';
import { toLf } from './lineDiff';
import * as nodePath from 'node:path';
import { resolveWorkspacePath } from './paths';
import type { WorkspaceFolder } from './host';
import type { ChatReview } from '../protocol/webview';
import type { RecordedWrite } from './recordingHost';

/** Runs kept (the oldest go first), files per run, and characters of each side of a file. */
export const MAX_RUNS = 20;
export const MAX_FILES_PER_RUN = 200;
export const MAX_TRACKED_CHARS = 1_000_000;
/** Characters of a file's path and its label; a longer one (a command can make one) is counted as untracked, so the record and the list stay valid. */
export const MAX_PATH_CHARS = 4096;
/**
 * Characters of every text the log holds; past it the oldest runs go, and a write that would not fit
 * even then is counted as untracked. Saved as JSON, a character takes at most 6 bytes (`\u` escapes),
 * so the saved file stays under the editor's read limit (runChangesSaved.ts MAX_SAVED_BYTES).
 */
export const MAX_LOG_CHARS = 8_000_000;

const Text = z.string().max(MAX_TRACKED_CHARS).nullable();
const FileChange = z.object({
  /** Absolute path: the key, and what is read and written. */
  file: z.string().min(1).max(MAX_PATH_CHARS),
  /** What the user sees (workspace-relative). */
  path: z.string().min(1).max(MAX_PATH_CHARS),
  /** The text before the run's first write; null: the run created the file. */
  before: Text,
  /** The text the run's last write left, as reviewed so far; null: the run deleted the file. */
  after: Text,
  /** A terminal command of the run wrote it (src/core/commandWrites.ts). */
  byCommand: z.literal(true).optional(),
  /** The text before the run is not known (a command changed or deleted it): listed, never undone or diffed; `before` is null. */
  noEarlierCopy: z.literal(true).optional(),
});
const RunChangeSet = z.object({
  runId: z.string().min(1).max(200),
  threadId: z.string().min(1).max(200),
  files: z.array(FileChange).max(MAX_FILES_PER_RUN),
  /** Writes not tracked: a file over MAX_TRACKED_CHARS, a path over MAX_PATH_CHARS, a folder, a run past MAX_FILES_PER_RUN. */
  untracked: z.number().int().nonnegative(),
});
export const RunChangeLogData = z.object({ version: z.literal(1), runs: z.array(RunChangeSet).max(MAX_RUNS) });

export type FileChange = z.infer<typeof FileChange>;
export type RunChangeSet = z.infer<typeof RunChangeSet>;
export type RunChangeLogData = z.infer<typeof RunChangeLogData>;

export interface RunRef {
  runId: string;
  threadId: string;
}

/** What to write to undo: a text, or null to delete the file. */
export interface PlannedWrite {
  file: string;
  text: string | null;
}

/** A file as the run's change list shows it. */
export interface FileChangeView {
  path: string;
  kind: 'created' | 'changed' | 'deleted';
  hunks: ChatReview['hunks'];
  byCommand?: true;
  noEarlierCopy?: true;
}

/** How a write came: a terminal command's, and whether its text before is unknown (`before` is then ignored). */
export interface WriteOrigin {
  byCommand?: boolean;
  noEarlierCopy?: boolean;
}

export class RunChangeLog {
  private runs: RunChangeSet[];
  private readonly views = new WeakMap<FileChange, { before: string | null; after: string | null; byCommand: boolean; view: FileChangeView }>();

  constructor(data?: RunChangeLogData) {
    this.runs = data ? structuredClone(data.runs) : [];
  }

  /** The log from what was saved; an unreadable or foreign file counts as empty. */
  static parse(json: unknown): RunChangeLog {
    const parsed = RunChangeLogData.safeParse(json);
    if (parsed.success) return new RunChangeLog(parsed.data);
    // One bad or surplus run does not cost the others: the newest runs that are valid are kept.
    const runs = typeof json === 'object' && json !== null && (json as { version?: unknown }).version === 1 ? (json as { runs?: unknown }).runs : undefined;
    if (!Array.isArray(runs)) return new RunChangeLog();
    const valid = runs.slice(-MAX_RUNS).flatMap((run) => {
      const one = RunChangeSet.safeParse(run);
      return one.success ? [one.data] : [];
    });
    const log = new RunChangeLog({ version: 1, runs: valid });
    log.trimToBudget(0);
    return log;
  }

  toJSON(): RunChangeLogData {
    return { version: 1, runs: this.runs };
  }

  /**
   * A write of the run: `before` is the file's text before this write (null: absent), `after` what the
   * write left (null: deleted). The first write of a file in a run fixes its `before`.
   */
  record(ref: RunRef, file: string, path: string, before: string | null, after: string | null, origin: WriteOrigin = {}): void {
    const run = this.runFor(ref);
    if (tooLarge(before) || tooLarge(after) || file.length > MAX_PATH_CHARS || path.length > MAX_PATH_CHARS) {
      run.untracked++;
      return;
    }
    const known = run.files.find((f) => f.file === file);
    if (!known && run.files.length >= MAX_FILES_PER_RUN) return void run.untracked++;
    const adds = known ? (after?.length ?? 0) - (known.after?.length ?? 0) : (before?.length ?? 0) + (after?.length ?? 0);
    if (!this.trimToBudget(adds, run)) return void run.untracked++;
    const marks = { ...(origin.byCommand ? { byCommand: true as const } : {}) };
    // An earlier write of the run fixed the text before; a command's write then only moves `after`.
    if (known) Object.assign(known, { after }, marks);
    else run.files.push({ file, path, before: origin.noEarlierCopy ? null : before, after, ...marks, ...(origin.noEarlierCopy ? { noEarlierCopy: true as const } : {}) });
    this.dropIfUnchanged(run, file);
  }

  /**
   * A write as the recording host reported it (src/core/recordingHost.ts): a text it could not read is
   * counted as untracked; a terminal command's file without a known text before is listed all the
   * same, marked: no diff, no Undo (unless an earlier write of the run already fixed its text before).
   */
  recordWrite(ref: RunRef, write: RecordedWrite, path: string): void {
    const noEarlierCopy = write.byCommand === true && write.before === undefined;
    if (write.untracked !== undefined) this.untracked(ref, write.untracked);
    else if (write.after === undefined || (write.before === undefined && !noEarlierCopy)) this.untracked(ref);
    else this.record(ref, write.file, path, write.before ?? null, write.after, { byCommand: write.byCommand, noEarlierCopy });
  }

  /**
   * Drops the oldest runs (never `keep`) until `adds` more characters fit under MAX_LOG_CHARS; false
   * when they do not fit even then.
   */
  private trimToBudget(adds: number, keep?: RunChangeSet): boolean {
    let chars = this.chars();
    while (chars + adds > MAX_LOG_CHARS) {
      const oldest = this.runs.findIndex((r) => r !== keep);
      if (oldest < 0) return false;
      chars -= charsOf(this.runs[oldest]);
      this.runs.splice(oldest, 1);
    }
    return true;
  }

  private chars(): number {
    let n = 0;
    for (const run of this.runs) n += charsOf(run);
    return n;
  }

  /** The run's set, made (and the oldest dropped past MAX_RUNS) on its first write. */
  private runFor(ref: RunRef): RunChangeSet {
    let run = this.runs.find((r) => r.runId === ref.runId && r.threadId === ref.threadId);
    if (!run) {
      run = { runId: ref.runId, threadId: ref.threadId, files: [], untracked: 0 };
      this.runs.push(run);
      this.runs.splice(0, Math.max(0, this.runs.length - MAX_RUNS));
    }
    return run;
  }

  /** A writing call of the run that could not be tracked (a folder, a file too large). */
  untracked(ref: RunRef, count = 1): void {
    this.runFor(ref).untracked += count;
  }

  /** The thread's runs that still have changes to review, oldest first. */
  runsOf(threadId: string): readonly RunChangeSet[] {
    return this.runs.filter((r) => r.threadId === threadId && (r.files.length > 0 || r.untracked > 0));
  }

  /** The file as listed; its hunks are worked out again only when its texts changed since the last time (the list is sent after every write). */
  view(change: FileChange): FileChangeView {
    const cached = this.views.get(change);
    if (cached && cached.before === change.before && cached.after === change.after && cached.byCommand === (change.byCommand === true)) return cached.view;
    const kind = change.after === null ? 'deleted' : change.before === null && !change.noEarlierCopy ? 'created' : 'changed';
    const marks = { ...(change.byCommand ? { byCommand: true as const } : {}), ...(change.noEarlierCopy ? { noEarlierCopy: true as const } : {}) };
    let view: FileChangeView = { path: change.path, kind, hunks: [], ...marks };
    if (change.after !== null && !change.noEarlierCopy) {
      const review = hunkReview(change.before ?? '', change.after);
      view = { path: change.path, kind, hunks: cardHunks(review, change.after, (i) => headerOf(review, i)), ...marks };
    }
    this.views.set(change, { before: change.before, after: change.after, byCommand: change.byCommand === true, view });
    return view;
  }

  /** Undo of the whole file: the text before (or a delete), only while the file holds exactly what the run left. */
  planUndoFile(ref: RunRef, file: string, current: string | null): PlannedWrite {
    const change = this.change(ref, file);
    requireEarlierCopy(change);
    requireUnchanged(change, current);
    return { file, text: change.before };
  }

  /** Undo of hunk `index`: the file with that hunk as it was before, only while the file holds exactly what the run left. */
  planUndoHunk(ref: RunRef, file: string, index: number, current: string | null): PlannedWrite {
    const change = this.change(ref, file);
    requireEarlierCopy(change);
    if (change.after === null) throw new CodedError(ErrorCode.InvalidArguments, `${change.path} was deleted by the run: undo the whole file`);
    requireUnchanged(change, current);
    const text = withHunk(hunkReview(change.before ?? '', change.after), change.after, index, false);
    if (text === undefined) throw new CodedError(ErrorCode.NotFound, `${change.path} has no hunk ${index + 1}`);
    return { file, text };
  }

  /** The planned write was made: the file now holds `text` (null: absent). */
  written(ref: RunRef, write: PlannedWrite): void {
    const run = this.run(ref);
    const change = run.files.find((f) => f.file === write.file);
    if (!change) return;
    change.after = write.text;
    this.dropIfUnchanged(run, write.file);
  }

  /** Keep the file as the run left it: it leaves the list. */
  keepFile(ref: RunRef, file: string): void {
    const run = this.run(ref);
    this.change(ref, file);
    run.files = run.files.filter((f) => f.file !== file);
  }

  /** Keep hunk `index`: the text before takes it, so it leaves the list. */
  keepHunk(ref: RunRef, file: string, index: number): void {
    const change = this.change(ref, file);
    requireEarlierCopy(change);
    if (change.after === null) throw new CodedError(ErrorCode.InvalidArguments, `${change.path} was deleted by the run: keep the whole file`);
    const review = hunkReview(change.before ?? '', change.after);
    const before = withHunk(review, change.before ?? '', index, true);
    if (before === undefined || index >= review.hunks.length) throw new CodedError(ErrorCode.NotFound, `${change.path} has no hunk ${index + 1}`);
    change.before = before;
    this.dropIfUnchanged(this.run(ref), file);
  }

  /** Keep everything the run changed. */
  keepRun(ref: RunRef): void {
    this.runs = this.runs.filter((r) => !(r.runId === ref.runId && r.threadId === ref.threadId));
  }

  /** Forgets some of a thread's runs (Rewind restored what they changed). */
  forgetRuns(threadId: string, runIds: readonly string[]): void {
    const gone = new Set(runIds);
    this.runs = this.runs.filter((r) => r.threadId !== threadId || !gone.has(r.runId));
  }

  /** Forgets a thread's runs (the thread was deleted). */
  forgetThread(threadId: string): void {
    this.runs = this.runs.filter((r) => r.threadId !== threadId);
  }

  private run(ref: RunRef): RunChangeSet {
    const run = this.runs.find((r) => r.runId === ref.runId && r.threadId === ref.threadId);
    if (!run) throw new CodedError(ErrorCode.NotFound, `no changes are recorded for run ${ref.runId}`);
    return run;
  }

  private change(ref: RunRef, file: string): FileChange {
    const change = this.run(ref).files.find((f) => f.file === file);
    if (!change) throw new CodedError(ErrorCode.NotFound, `the run's changes name no such file`);
    return change;
  }

  private dropIfUnchanged(run: RunChangeSet, file: string): void {
    const change = run.files.find((f) => f.file === file);
    if (change && !change.noEarlierCopy && sameText(change.before, change.after)) run.files = run.files.filter((f) => f !== change);
  }
}

/** INVALID_ARGUMENTS for a file whose text before the run is not known: nothing could restore it exactly. */
function requireEarlierCopy(change: FileChange): void {
  if (change.noEarlierCopy) throw new CodedError(ErrorCode.InvalidArguments, `${change.path} was written by a terminal command and no earlier copy was kept: it cannot be undone here`);
}

/** TARGET_CHANGED unless the file holds exactly what the run left (line endings aside). */
function requireUnchanged(change: FileChange, current: string | null): void {
  if (sameText(change.after, current)) return;
  const now = current === null ? 'it no longer exists' : change.after === null ? 'it exists again' : 'it was edited since';
  throw new CodedError(ErrorCode.TargetChanged, `${change.path} is not as the run left it (${now}); nothing was written. Open the diff to compare.`);
}

export function sameText(a: string | null, b: string | null): boolean {
  return a === null || b === null ? a === b : toLf(a) === toLf(b);
}

function charsOf(run: RunChangeSet): number {
  let n = 0;
  for (const f of run.files) n += (f.before?.length ?? 0) + (f.after?.length ?? 0);
  return n;
}

function tooLarge(text: string | null): boolean {
  return text !== null && text.length > MAX_TRACKED_CHARS;
}

/**
 * A file a saved record names may be read or written only where a tool could write it: inside a
 * workspace folder by the tools' own checks (src/core/paths.ts: `..`, symlinks out of the workspace),
 * at exactly the path named (no symbolic link on the way, so the label worked out from it is what is
 * written), and not a protected file (secrets, code-running configuration: a tool's write of one asks,
 * an Undo would not). The record lives outside the workspace, but anything on the machine may have
 * written it. Throws CodedError: PATH_INVALID, PATH_OUTSIDE_WORKSPACE, PATH_PROTECTED, NO_WORKSPACE.
 */
export async function checkRecordedFile(file: string, folders: readonly WorkspaceFolder[], protectedPatterns: readonly string[]): Promise<void> {
  if (!nodePath.isAbsolute(file)) throw new CodedError(ErrorCode.PathInvalid, 'the recorded path is not absolute; nothing was done');
  const target = await resolveWorkspacePath(file, folders, { protectedPatterns });
  if (target.absolute !== nodePath.resolve(file)) throw new CodedError(ErrorCode.PathOutsideWorkspace, `${target.relative} is reached through a symbolic link; nothing was done`);
  if (target.protected) throw new CodedError(ErrorCode.PathProtected, `${target.relative} is a protected file; nothing was done (undo it by hand)`);
}
