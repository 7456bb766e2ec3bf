/**
 * Rewind to here: what restoring the workspace to its state before a run means, planned from the
 * run change record (runChanges.ts), whose text before each run is the checkpoint. For every file a
 * run from the chosen one on changed: the text before the first of those runs (null: absent) is
 * what is written back, and the text the last of them left is what the file must still hold; a file
 * that holds something else was edited since, and is a conflict that is named and, unless the user
 * chooses otherwise, left alone. A file whose text before is not known (a terminal command of the
 * first of those runs to touch it changed or deleted it, no earlier copy kept) is not restored: the
 * plan names it as not restorable. Pure data: the editor side reads and writes (src/vscode/reviews/rewind.ts).
 */
import type { RunChangeSet } from './runChanges';
import { sameText } from './runChanges';

export interface RewindStep {
  /** Absolute path, as the record holds it. */
  file: string;
  /** What the user sees (workspace-relative). */
  path: string;
  /** `restore`: written back; `delete`: the runs created it; `recreate`: they (or the user) deleted it. */
  action: 'restore' | 'delete' | 'recreate';
  /** What is written (null: the file is deleted). */
  text: string | null;
  /** What the runs left, which the file must still hold (null: absent). */
  expected: string | null;
  /** The file holds neither what the runs left nor what is written back: the user changed it since. */
  conflict: boolean;
}

export interface RewindPlan {
  steps: RewindStep[];
  /** Writes of these runs the record could not keep (a file too large, a folder): not restored. */
  untracked: number;
  /** Files a terminal command changed with no earlier copy kept (workspace-relative): named, not restored. */
  notRestorable: string[];
}

interface RewindTarget {
  path: string;
  before: string | null;
  after: string | null;
  /** The text before the first of the runs is not known. */
  noEarlierCopy: boolean;
}

/** The files the runs `runIds` (of one thread, in the record's order) changed: each one's text before the first and after the last. */
export function rewindTargets(runs: readonly RunChangeSet[], runIds: readonly string[]): { targets: Map<string, RewindTarget>; untracked: number } {
  const wanted = new Set(runIds);
  const targets = new Map<string, RewindTarget>();
  let untracked = 0;
  for (const run of runs) {
    if (!wanted.has(run.runId)) continue;
    untracked += run.untracked;
    for (const f of run.files) {
      const known = targets.get(f.file);
      if (known) known.after = f.after;
      else targets.set(f.file, { path: f.path, before: f.before, after: f.after, noEarlierCopy: f.noEarlierCopy === true });
    }
  }
  return { targets, untracked };
}

/** The plan, given each target file's text now (null: absent). A file already as it was before is left out. */
export function planRewind(runs: readonly RunChangeSet[], runIds: readonly string[], current: ReadonlyMap<string, string | null>): RewindPlan {
  const { targets, untracked } = rewindTargets(runs, runIds);
  const steps: RewindStep[] = [];
  const notRestorable: string[] = [];
  for (const [file, t] of targets) {
    if (t.noEarlierCopy) {
      notRestorable.push(t.path);
      continue;
    }
    const now = current.get(file) ?? null;
    if (sameText(now, t.before)) continue;
    const action = t.before === null ? 'delete' : now === null ? 'recreate' : 'restore';
    steps.push({ file, path: t.path, action, text: t.before, expected: t.after, conflict: !sameText(now, t.after) });
  }
  return { steps, untracked, notRestorable };
}

/** The preview's lines: one per file, conflicts marked. */
export function describeSteps(steps: readonly RewindStep[]): string[] {
  const verb = { restore: 'Restore', delete: 'Delete', recreate: 'Re-create' } as const;
  return steps.map((s) => `${verb[s.action]} ${s.path}${s.conflict ? ' (you changed it since: kept unless you overwrite)' : ''}`);
}
