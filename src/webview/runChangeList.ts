/**
 * The change list of each run of the thread shown, under the conversation: every file the run wrote,
 * created or deleted, its hunks as a diff, and Keep, Undo and Open Diff for the whole run, a file or a
 * hunk. The extension holds the record (src/vscode/reviews/runChangeList.ts) and sends the lists
 * again on every `ready`, so they come back after a window reload; this view keeps nothing itself.
 * Paths and lines come from the extension and go in as text.
 */
import type { ChatRunChanges } from '../protocol/webview';

export type RunChangeAction = 'keep' | 'undo' | 'open';

export interface RunChangeActions {
  runChange(threadId: string, runId: string, file: string | undefined, hunk: number | undefined, action: RunChangeAction): void;
}

export class RunChangeListView {
  readonly root = el('div', { class: 'run-changes' });
  private runs: readonly ChatRunChanges[] = [];
  private threadId: string | null = null;

  constructor(private readonly actions: RunChangeActions) {}

  setRuns(runs: readonly ChatRunChanges[]): void {
    this.runs = runs;
    this.render();
  }

  setThread(threadId: string | null): void {
    if (threadId === this.threadId) return;
    this.threadId = threadId;
    this.render();
  }

  private render(): void {
    const shown = this.runs.filter((r) => r.threadId === this.threadId);
    this.root.replaceChildren(...shown.map((run, i) => this.runSection(run, i === shown.length - 1)));
    this.root.hidden = shown.length === 0;
  }

  private runSection(run: ChatRunChanges, last: boolean): HTMLElement {
    const act = (file: string | undefined, hunk: number | undefined, action: RunChangeAction) => () => this.actions.runChange(run.threadId, run.runId, file, hunk, action);
    const count = `${run.files.length} ${run.files.length === 1 ? 'file' : 'files'}`;
    const section = el('section', { class: 'run-change-list', 'aria-label': `Changes of ${last ? 'the last run' : 'an earlier run'}` });
    const head = el('div', { class: 'run-change-head' }, el('span', { class: 'run-change-title' }, `${last ? 'Changes of the last run' : 'Changes of an earlier run'}: ${count}`));
    if (run.files.length > 0) {
      head.append(
        button('run-keep-all secondary', 'Keep all', `Keep every change of this run as it is (${count})`, act(undefined, undefined, 'keep')),
        button('run-undo-all secondary', 'Undo all', `Put back every file this run changed, where the file is still as the run left it (${count})`, act(undefined, undefined, 'undo')),
      );
    }
    section.append(head);
    for (const file of run.files) section.append(this.fileBlock(file, act));
    if (run.untracked > 0) section.append(el('p', { class: 'run-change-note' }, `${run.untracked} more ${run.untracked === 1 ? 'write is' : 'writes are'} not listed (a folder, or a file too large to keep).`));
    return section;
  }

  private fileBlock(file: ChatRunChanges['files'][number], act: (file: string | undefined, hunk: number | undefined, action: RunChangeAction) => () => void): HTMLElement {
    const verb = file.kind === 'created' ? 'Created' : file.kind === 'deleted' ? 'Deleted' : 'Changed';
    const block = el('div', { class: 'run-change-file', 'data-path': file.path });
    const origin = `${file.byCommand ? ' (written by a terminal command)' : ''}${file.noEarlierCopy ? ': no earlier copy kept, so it cannot be undone here' : ''}`;
    const line = el('div', { class: 'run-change-file-head' }, el('span', { class: 'run-change-path', title: file.path }, `${verb} ${file.path}${origin}`));
    if (file.noEarlierCopy) {
      if (file.kind !== 'deleted') line.append(button('run-open secondary', 'Open', `Open ${file.path} as it is now`, act(file.file, undefined, 'open')));
      line.append(button('run-keep secondary', 'Keep', `Take ${file.path} off the list`, act(file.file, undefined, 'keep')));
      block.append(line);
      return block;
    }
    line.append(
      button('run-open secondary', 'Open Diff', `Open ${file.path}: the text before the run on the left, the file now on the right`, act(file.file, undefined, 'open')),
      button('run-keep secondary', 'Keep', `Keep ${file.path} as the run left it`, act(file.file, undefined, 'keep')),
      button('run-undo secondary', 'Undo', undoTitle(file), act(file.file, undefined, 'undo')),
    );
    block.append(line);
    if (file.hunks.length > 0) {
      const pre = el('div', { class: 'kept-diff run-change-diff' });
      file.hunks.forEach((hunk, index) => {
        const hunkHead = el('div', { class: 'run-hunk-head' }, el('span', { class: 'kept-hunk' }, hunk.header));
        if (file.hunks.length > 1) {
          hunkHead.append(
            button('run-hunk-keep secondary', 'Keep', `Keep this hunk of ${file.path}`, act(file.file, index, 'keep')),
            button('run-hunk-undo secondary', 'Undo', `Put this hunk of ${file.path} back as it was, if the file is still as the run left it`, act(file.file, index, 'undo')),
          );
        }
        pre.append(hunkHead);
        for (const l of lines(hunk.removed)) pre.append(el('del', {}, `- ${l}`));
        for (const l of lines(hunk.added)) pre.append(el('ins', {}, `+ ${l}`));
      });
      if (file.moreHunks > 0) pre.append(el('span', { class: 'kept-hunk' }, `… and ${file.moreHunks} more hunks (Open Diff shows them)`));
      block.append(pre);
    }
    return block;
  }
}

function undoTitle(file: ChatRunChanges['files'][number]): string {
  if (file.kind === 'created') return `Delete ${file.path}, if it is still as the run left it`;
  if (file.kind === 'deleted') return `Create ${file.path} again as it was before the run, if nothing is there now`;
  return `Put back ${file.path} as it was before the run, if it is still as the run left it`;
}

function button(cls: string, label: string, title: string, onClick: () => void): HTMLButtonElement {
  const b = el('button', { type: 'button', class: cls, title }, label);
  b.addEventListener('click', onClick);
  return b;
}

function lines(text: string): string[] {
  if (text === '') return [];
  return text.replace(/\n$/, '').split('\n');
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string>, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (name === 'class') node.className = value;
    else node.setAttribute(name, value);
  }
  node.append(...children);
  return node;
}
