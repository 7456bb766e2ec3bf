/**
 * Rewind to here: on a user message of the chat, the workspace files the runs from that message on
 * changed go back to their text before those runs (the checkpoint is the run change record,
 * runChangeList.ts), the backend drops the message and what followed it from the thread
 * (`truncateThread`: the model forgets them), and the view drops them from the transcript. A modal
 * preview names every file (restored, deleted, re-created) and the turns dropped first; a file the
 * user changed since is named as a conflict and left as it is unless the user chooses to overwrite;
 * a file a terminal command changed with no earlier copy kept is named as not restorable.
 * Nothing is written before the backend has truncated, so a refused rewind changes nothing. A thread
 * whose agent cannot truncate (an ACP agent, an older backend) gets its files restored only, and the
 * dialog says that the agent keeps its memory of the turns.
 */
import * as vscode from 'vscode';
import { CodedError, ErrorCode } from '../../protocol';
import type { WebviewToHost } from '../../protocol/webview';
import { consent, consentLines, fitConsent, type ConsentText, type FittedConsent } from '../../core/consent/consentText';
import { describeSteps, planRewind, rewindTargets, type RewindPlan } from '../../core/rewindPlan';
import type { RunChangeList } from './runChangeList';
import type { ChatViewProvider } from '../chat/chatView';
import { currentText, writeIfUnchanged } from './guardedWrite';
import { safe } from '../../core/uiText';
import * as ui from '../ui';

type RewindRequest = Extract<WebviewToHost, { type: 'rewind' }>;

export interface RewindDeps {
  chat: Pick<ChatViewProvider, 'postRewound' | 'postNotice' | 'showError'>;
  changes: Pick<RunChangeList, 'threadRuns' | 'forgetRuns' | 'running' | 'checkFile'>;
  /** The thread the chat shows. */
  currentThread(): string;
  /** Whether the thread's agent drops turns on request: the backend with `truncateThread`, not an ACP agent. */
  canTruncate(threadId: string): boolean;
  /** The agent's name, for the dialog. */
  agentName(threadId: string): string;
  truncate(threadId: string, runId: string): Promise<number>;
  log: Pick<vscode.LogOutputChannel, 'info' | 'warn'>;
}

type Choice = 'rewind' | 'keepEdits' | 'overwrite';

/** Files named in the dialog at most; the rest are counted (and all are in the chat's notice and the log). */
const FILES_SHOWN = [8, 4, 0];

export class Rewinder {
  private busy = false;

  constructor(private readonly deps: RewindDeps) {}

  async rewind(request: RewindRequest): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      await this.run(request);
    } catch (e) {
      this.deps.chat.showError(`Not rewound: ${e instanceof Error ? e.message : String(e)}`, e instanceof CodedError ? e.code : ErrorCode.Internal, false);
    } finally {
      this.busy = false;
    }
  }

  private async run(request: RewindRequest): Promise<void> {
    const { deps } = this;
    const { threadId, runId } = request;
    if (threadId !== deps.currentThread()) return;
    if (deps.changes.running(threadId)) throw new CodedError(ErrorCode.RunBusy, 'a run is in progress; stop it or wait for it to end, then rewind.');
    const runIds = request.runIds[0] === runId ? request.runIds : [runId, ...request.runIds.filter((id) => id !== runId)];
    const plan = await this.plan(threadId, runIds);
    const truncates = deps.canTruncate(threadId);
    const choice = await this.confirm(plan, runIds.length, truncates, deps.agentName(threadId));
    if (choice === undefined) return;
    if (truncates) await deps.truncate(threadId, runId);
    const { restored, kept, failed } = await this.restore(plan, choice === 'overwrite');
    deps.changes.forgetRuns(threadId, runIds);
    if (truncates) deps.chat.postRewound(threadId, runId);
    const lines = [
      truncates ? `Rewound: ${runIds.length === 1 ? 'that message and its answer were' : `that message and ${runIds.length - 1} later ones were`} dropped from the conversation.` : `Files restored; ${deps.agentName(threadId)} keeps its memory of the conversation (it cannot drop turns): tell it what you undid.`,
      restored.length ? `Restored: ${restored.join(', ')}.` : 'No file needed restoring.',
      kept.length ? `Kept your edits (not overwritten): ${kept.join(', ')}.` : '',
      failed.length ? `Not restored (changed meanwhile or not writable): ${failed.join(', ')}.` : '',
    ].filter(Boolean);
    deps.log.info(`Rewind of thread ${threadId} to run ${runId}: ${lines.join(' ')}`);
    deps.chat.postNotice(lines.join('\n'));
  }

  /** The plan from the record, with each file's text now; a file the record names that is no longer the user's to write is left out. */
  private async plan(threadId: string, runIds: readonly string[]): Promise<RewindPlan> {
    const runs = this.deps.changes.threadRuns(threadId);
    const current = new Map<string, string | null>();
    for (const file of rewindTargets(runs, runIds).targets.keys()) {
      try {
        await this.deps.changes.checkFile(file);
      } catch (e) {
        this.deps.log.warn(`Rewind: left out ${file}: ${e instanceof Error ? e.message : String(e)}`);
        continue;
      }
      current.set(file, await currentText(vscode.Uri.file(file)));
    }
    const plan = planRewind(runs, runIds, current);
    return { ...plan, steps: plan.steps.filter((s) => current.has(s.file)) };
  }

  private async confirm(plan: RewindPlan, runs: number, truncates: boolean, agent: string): Promise<Choice | undefined> {
    const conflicts = plan.steps.filter((s) => s.conflict).length;
    const text = fitted(plan, runs, truncates, agent);
    const items: ui.SafeModalItem<Choice>[] = conflicts === 0
      ? [{ title: safe`Rewind`, value: 'rewind' }]
      : [{ title: safe`Rewind, Keep My Edits`, value: 'keepEdits' }, { title: safe`Rewind and Overwrite My Edits`, value: 'overwrite' }];
    return (await ui.showModalItems(text, items))?.value;
  }

  /** Writes each file back while it holds what was read for the plan; conflicts only when `overwrite`. */
  private async restore(plan: RewindPlan, overwrite: boolean): Promise<{ restored: string[]; kept: string[]; failed: string[] }> {
    const restored: string[] = [];
    const kept: string[] = [];
    const failed: string[] = [];
    for (const step of plan.steps) {
      if (step.conflict && !overwrite) {
        kept.push(step.path);
        continue;
      }
      const uri = vscode.Uri.file(step.file);
      const outcome = await writeIfUnchanged(uri, await currentText(uri), step.text).catch(() => 'failed' as const);
      (outcome === 'written' ? restored : failed).push(step.path);
    }
    return { restored, kept, failed };
  }
}

/** The dialog's text, naming as many files as fit (all of them are in the notice afterwards). */
function fitted(plan: RewindPlan, runs: number, truncates: boolean, agent: string): FittedConsent {
  const conflicts = plan.steps.filter((s) => s.conflict);
  const ordered = [...conflicts, ...plan.steps.filter((s) => !s.conflict)];
  const turns = runs === 1 ? 'this message and its answer' : `this message and the ${runs - 1} after it`;
  const memory: ConsentText = truncates
    ? consent`The conversation loses ${turns}: the model forgets them.`
    : consent`${agent} cannot drop turns: only the files are restored, and it keeps its memory of ${turns}.`;
  for (const shown of FILES_SHOWN) {
    const lines = describeSteps(ordered.slice(0, shown)).map((l) => consent`${l}`);
    const more = ordered.length - Math.min(shown, ordered.length);
    try {
      return fitConsent({
        message: consent`Rewind to this message?`,
        detail: consentLines([
          memory,
          plan.steps.length === 0 ? consent`No file changes of these runs are recorded (files you kept are not restored).` : consentLines([consent`Files (${plan.steps.length}):`, ...lines, more > 0 ? consent`… and ${more} more` : undefined]),
          conflicts.length > 0 ? consent`${conflicts.length} of them you changed since: Keep My Edits leaves them as they are.` : undefined,
          plan.untracked > 0 ? consent`${plan.untracked} writes were too large to record and are not restored.` : undefined,
          notRestorableLine(plan),
        ], '\n\n'),
      }, 'modal');
    } catch {
      // Fewer names next time.
    }
  }
  return fitConsent({ message: consent`Rewind to this message?`, detail: consentLines([memory, consent`${plan.steps.length} files change (${conflicts.length} you changed since).`, notRestorableLine(plan, 0)], '\n\n') }, 'modal');
}

/** The files a terminal command changed with no earlier copy kept: named (as many as fit), not restored. */
function notRestorableLine(plan: RewindPlan, shown = 8): ConsentText | undefined {
  const names = plan.notRestorable;
  if (names.length === 0) return undefined;
  const listed = names.slice(0, shown).join(', ');
  const more = names.length - Math.min(shown, names.length);
  return consent`Not restorable (a terminal command changed them and no earlier copy was kept): ${listed === '' ? `${names.length} files` : listed}${more > 0 && listed !== '' ? ` and ${more} more` : ''}.`;
}
