/**
 * The run change record as the extension keeps it on disk and lists it in the chat: read back from a
 * file in the extension's storage that anything on the machine may have written (a size cap before
 * it is read, then RunChangeLog.parse, which keeps the valid newest runs), and listed for the view
 * (every run of every thread, files up to the message's bound, hunks up to MAX_LISTED_HUNKS in all).
 * The editor side (src/vscode/reviews/runChangeList.ts) saves it and acts on it.
 */
import * as fs from 'node:fs';
import { MAX_CHANGE_FILES, MAX_REVIEW_HUNKS, type ChatRunChanges } from '../protocol/webview';
import { MAX_LOG_CHARS, RunChangeLog } from './runChanges';

/** A saved record larger than this is not read: MAX_LOG_CHARS at 6 bytes a character (`\u` escapes) and the structure fit. */
export const MAX_SAVED_BYTES = 6 * MAX_LOG_CHARS + 4 * 1024 * 1024;
/** Hunks listed in one message across all runs; the rest are counted (Open Diff shows them). */
export const MAX_LISTED_HUNKS = 1000;

/** The record saved in `file`; missing, too large or unreadable counts as empty, with the reason it was ignored. */
export function readSavedRunChanges(file: string): { log: RunChangeLog; ignored?: string } {
  try {
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    if (!stat) return { log: new RunChangeLog() };
    if (!stat.isFile() || stat.size > MAX_SAVED_BYTES) throw new Error('not a file of this extension');
    return { log: RunChangeLog.parse(JSON.parse(fs.readFileSync(file, 'utf8'))) };
  } catch (e) {
    return { log: new RunChangeLog(), ignored: e instanceof Error ? e.message : String(e) };
  }
}

/** The runs as the chat lists them; `relative` names a file for the user (the label is never read from the record). */
export function listedRunChanges(log: RunChangeLog, relative: (file: string) => string): ChatRunChanges[] {
  let hunkBudget = MAX_LISTED_HUNKS;
  const runs: ChatRunChanges[] = [];
  const threads = new Set(log.toJSON().runs.map((r) => r.threadId));
  for (const threadId of threads) {
    for (const run of log.runsOf(threadId)) {
      const files = run.files.slice(0, MAX_CHANGE_FILES).map((f) => {
        const view = log.view(f);
        const listed = Math.max(0, Math.min(view.hunks.length, MAX_REVIEW_HUNKS, hunkBudget));
        hunkBudget -= listed;
        const marks = { ...(view.byCommand ? { byCommand: true } : {}), ...(view.noEarlierCopy ? { noEarlierCopy: true } : {}) };
        return { file: f.file, path: relative(f.file), kind: view.kind, hunks: view.hunks.slice(0, listed), moreHunks: view.hunks.length - listed, ...marks };
      });
      runs.push({ threadId, runId: run.runId, files, untracked: run.untracked });
    }
  }
  return runs;
}
