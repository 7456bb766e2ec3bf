/**
 * The files a terminal command (RunInTerminal, RunTask) created, changed or deleted, as the editor's
 * file watcher reports them while the command runs: only inside the workspace folders, never a
 * protected file (secrets, `.git/`, code-running configuration: a write there is not something the
 * list could undo), at most MAX_COMMAND_PATHS a command, each path at most MAX_PATH_CHARS (the rest are counted). A file's text before
 * the command is known only when the editor held it unchanged in an open document when the command
 * started; a file the command created has none; any other is listed without an earlier copy. Pure
 * data: src/vscode/host/commandWriteWatch.ts feeds it the watcher's events.
 */
import * as nodePath from 'node:path';
import type { WorkspaceFolder } from './host';
import { isInside, isProtectedPath } from './paths';
import { MAX_LOG_CHARS, MAX_PATH_CHARS, MAX_TRACKED_CHARS } from './runChanges';

/** Files one command's writes list at most; the rest are counted as untracked. */
export const MAX_COMMAND_PATHS = 200;

export type WatchedChange = 'created' | 'changed' | 'deleted';

export interface CommandWrite {
  /** Absolute path. */
  file: string;
  /** The text before the command: a string (an open document held it), null (the command created it), undefined (no earlier copy kept). */
  before: string | null | undefined;
}

export interface CommandWrites {
  files: CommandWrite[];
  /** Files past MAX_COMMAND_PATHS, and events of paths over MAX_PATH_CHARS: written, not listed. */
  dropped: number;
}

/** A document the editor holds open when a command starts; `text` is read only for one that may be kept. */
export interface OpenDocument {
  file: string;
  dirty: boolean;
  text(): string;
}

/**
 * The texts kept as the files' texts before a command: open, unchanged documents inside the
 * workspace folders, each at most MAX_TRACKED_CHARS, MAX_LOG_CHARS in all (the rest have no earlier copy).
 */
export function keptOpenTexts(documents: Iterable<OpenDocument>, folders: readonly WorkspaceFolder[]): Map<string, string> {
  const openTexts = new Map<string, string>();
  let budget = MAX_LOG_CHARS;
  for (const doc of documents) {
    if (doc.dirty || !folders.some((f) => isInside(doc.file, f.path))) continue;
    const text = doc.text();
    if (text.length > MAX_TRACKED_CHARS || text.length > budget) continue;
    budget -= text.length;
    openTexts.set(doc.file, text);
  }
  return openTexts;
}

export class CommandWriteCollector {
  private readonly first = new Map<string, WatchedChange>();
  private dropped = 0;

  /** `openTexts`: the texts of files the editor held unchanged in open documents when the command started. */
  constructor(
    private readonly folders: readonly WorkspaceFolder[],
    private readonly protectedPatterns: readonly string[],
    private readonly openTexts: ReadonlyMap<string, string>,
  ) {}

  /** A watcher event; only the first event of a file says what it was before the command. A path the record cannot hold (over MAX_PATH_CHARS) is counted, each time, before any work on it. */
  note(change: WatchedChange, file: string): void {
    if (file.length > MAX_PATH_CHARS) return void this.dropped++;
    if (!nodePath.isAbsolute(file)) return;
    const absolute = nodePath.resolve(file);
    if (this.first.has(absolute)) return;
    const folder = this.folders.find((f) => isInside(absolute, f.path));
    if (!folder || absolute === nodePath.resolve(folder.path)) return;
    if (isProtectedPath(nodePath.relative(folder.path, absolute), this.protectedPatterns)) return;
    if (this.first.size >= MAX_COMMAND_PATHS) return void this.dropped++;
    this.first.set(absolute, change);
  }

  result(): CommandWrites {
    const files = [...this.first].map(([file, change]): CommandWrite => ({
      file,
      before: change === 'created' ? null : this.openTexts.get(file),
    }));
    return { files, dropped: this.dropped };
  }
}

/** Runs remembered per thread for attributing late reports; older ones are forgotten. */
const MAX_SPANS_PER_THREAD = 8;

/**
 * Which run of a thread was in progress at a moment: a command's writes are reported after the call
 * answered (the watcher is late), when that run may have ended or a newer one begun; they belong to
 * the run the call was made in, found by the call's start time.
 */
export class RunSpans {
  private readonly spans = new Map<string, { runId: string; start: number; end?: number }[]>();

  started(threadId: string, runId: string, at: number): void {
    const list = this.spans.get(threadId) ?? [];
    list.push({ runId, start: at });
    if (list.length > MAX_SPANS_PER_THREAD) list.shift();
    this.spans.set(threadId, list);
  }

  ended(threadId: string, runId: string, at: number): void {
    const span = this.spans.get(threadId)?.find((s) => s.runId === runId && s.end === undefined);
    if (span) span.end = at;
  }

  /** The run of the thread in progress at `at`, if any (the newest when spans touch). */
  runAt(threadId: string, at: number): string | undefined {
    const list = this.spans.get(threadId) ?? [];
    for (let i = list.length - 1; i >= 0; i--) {
      const s = list[i];
      if (s.start <= at && (s.end === undefined || at <= s.end)) return s.runId;
    }
    return undefined;
  }
}
