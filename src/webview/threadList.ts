/**
 * The chat's history list: search by title, New Chat, and per thread open, rename and delete (with
 * a confirmation in the row). Its open/closed state, the search text and the row being renamed or
 * confirmed are the panel's own; the list itself comes from the reducer's state. Titles are set as
 * text, never as HTML. Every control is a button or an input, so it works from the keyboard; F2 and
 * Delete on a row rename and delete it; Escape backs out one step (rename or confirmation first,
 * then the panel).
 */
import type { ChatThreadSummary } from '../protocol/webview';
import { formatThreadDate } from './format';
import type { ChatState } from './state';

export interface ThreadListActions {
  newChat(): void;
  switchThread(threadId: string): void;
  renameThread(threadId: string, title: string): void;
  deleteThread(threadId: string): void;
  /** The panel closed; the caller puts the keyboard focus back where it belongs. */
  closed(): void;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function button(className: string, text: string, label?: string): HTMLButtonElement {
  const b = el('button', className, text);
  b.type = 'button';
  if (label) b.setAttribute('aria-label', label);
  return b;
}

export class ThreadList {
  readonly root = el('section', 'history');
  private readonly search = el('input', 'history-search');
  private readonly newButton = button('history-new', 'New Chat', 'Start a new conversation');
  private readonly list = el('ul', 'history-list');
  private readonly emptyText = el('p', 'history-empty muted');
  private threads: ChatThreadSummary[] = [];
  private currentId: string | null = null;
  private running = false;
  private renaming: string | null = null;
  private confirming: string | null = null;

  constructor(private readonly actions: ThreadListActions) {
    this.root.hidden = true;
    this.root.setAttribute('aria-label', 'Conversations');
    const heading = el('h2', 'history-heading', 'Conversations');
    const close = button('history-close secondary', 'Close', 'Close the conversation list');
    this.search.type = 'search';
    this.search.placeholder = 'Search by title';
    this.search.setAttribute('aria-label', 'Search conversations by title');
    this.list.setAttribute('aria-label', 'Conversations, most recent first');
    const header = el('div', 'history-header');
    header.append(heading, el('span', 'spacer'), this.newButton, close);
    this.root.append(header, this.search, this.list, this.emptyText);

    close.addEventListener('click', () => this.close());
    this.newButton.addEventListener('click', () => {
      this.actions.newChat();
      this.close();
    });
    this.search.addEventListener('input', () => this.render());
    this.root.addEventListener('keydown', (e) => this.onKey(e));
    this.list.addEventListener('click', (e) => this.onClick(e));
  }

  get isOpen(): boolean {
    return !this.root.hidden;
  }

  open(): void {
    this.root.hidden = false;
    this.render();
    this.search.focus();
  }

  close(): void {
    if (this.root.hidden) return;
    this.root.hidden = true;
    this.renaming = null;
    this.confirming = null;
    this.actions.closed();
  }

  update(state: ChatState): void {
    const running = state.run !== null;
    if (state.threads === this.threads && state.threadId === this.currentId && running === this.running) return;
    this.threads = state.threads;
    this.currentId = state.threadId;
    this.running = running;
    if (this.renaming && !this.threads.some((t) => t.id === this.renaming)) this.renaming = null;
    if (this.confirming && !this.threads.some((t) => t.id === this.confirming)) this.confirming = null;
    // A list being edited keeps its input (and what was typed); it catches up when the edit ends.
    if (this.isOpen && this.renaming === null) this.render();
  }

  private visible(): ChatThreadSummary[] {
    const q = this.search.value.trim().toLowerCase();
    return q ? this.threads.filter((t) => t.title.toLowerCase().includes(q)) : this.threads;
  }

  private render(): void {
    const now = Date.now();
    // Rows are rebuilt; the keyboard focus goes back to the same control of the same row.
    const active = document.activeElement instanceof HTMLElement && this.list.contains(document.activeElement) ? document.activeElement : null;
    const focusId = active?.closest<HTMLElement>('.thread-row')?.dataset.id;
    const focusClass = active?.classList[0];
    const rows = this.visible().map((t) => this.row(t, now));
    this.list.replaceChildren(...rows);
    if (focusId && focusClass) this.focusRow(focusId, `.${focusClass}`);
    const q = this.search.value.trim();
    this.emptyText.textContent = rows.length > 0 ? '' : q ? `No conversation title contains “${q}”.` : 'No conversations yet.';
    this.emptyText.hidden = rows.length > 0;
    // A run belongs to the thread shown: no switching away, starting another or deleting it meanwhile.
    this.newButton.disabled = this.running;
  }

  private row(t: ChatThreadSummary, now: number): HTMLLIElement {
    const li = el('li', 'thread-row');
    li.dataset.id = t.id;
    const current = t.id === this.currentId;
    li.classList.toggle('current', current);
    if (this.renaming === t.id) {
      const input = el('input', 'thread-title-input');
      input.value = t.title;
      input.maxLength = 80;
      input.setAttribute('aria-label', `New title for “${t.title}”`);
      li.append(input, button('thread-rename-save', 'Save'), button('thread-rename-cancel secondary', 'Cancel'));
      return li;
    }
    if (this.confirming === t.id) {
      li.classList.add('confirming');
      const confirm = button('thread-delete-confirm danger', 'Delete', `Delete “${t.title}” for good`);
      li.append(el('span', 'thread-confirm-text', `Delete “${t.title}”?`), confirm, button('thread-delete-cancel secondary', 'Cancel'));
      return li;
    }
    const open = button('thread-open', '');
    if (current) open.setAttribute('aria-current', 'true');
    open.setAttribute('aria-keyshortcuts', 'F2 Delete');
    const date = formatThreadDate(t.updatedAt, now);
    open.title = `${t.title}\nStarted ${new Date(t.createdAt).toLocaleString()}, last message ${new Date(t.updatedAt).toLocaleString()}`;
    open.append(el('span', 'thread-title', t.title), el('span', 'thread-date', date));
    open.disabled = this.running && !current;
    const rename = button('thread-rename secondary', 'Rename', `Rename “${t.title}”`);
    const del = button('thread-delete secondary', 'Delete', `Delete “${t.title}”`);
    del.disabled = this.running && current;
    li.append(open, rename, del);
    return li;
  }

  private onClick(e: MouseEvent): void {
    const target = e.target instanceof Element ? e.target.closest('button') : null;
    const id = target?.closest<HTMLElement>('.thread-row')?.dataset.id;
    if (!target || !id) return;
    if (target.classList.contains('thread-open')) {
      if (id !== this.currentId) this.actions.switchThread(id);
      this.close();
    } else if (target.classList.contains('thread-rename')) {
      this.startEdit(id, 'rename');
    } else if (target.classList.contains('thread-rename-save')) {
      this.saveRename(id);
    } else if (target.classList.contains('thread-delete')) {
      this.startEdit(id, 'delete');
    } else if (target.classList.contains('thread-delete-confirm')) {
      this.confirming = null;
      this.actions.deleteThread(id);
      this.render();
      this.search.focus();
    } else if (target.classList.contains('thread-rename-cancel') || target.classList.contains('thread-delete-cancel')) {
      this.cancelEdit();
    }
  }

  private startEdit(id: string, kind: 'rename' | 'delete'): void {
    this.renaming = kind === 'rename' ? id : null;
    this.confirming = kind === 'delete' ? id : null;
    this.render();
    const row = this.rowElement(id);
    if (kind === 'rename') {
      const input = row?.querySelector<HTMLInputElement>('.thread-title-input');
      input?.focus();
      input?.select();
    } else {
      // Cancel is focused, so an Enter typed by habit does not delete.
      row?.querySelector<HTMLButtonElement>('.thread-delete-cancel')?.focus();
    }
  }

  private saveRename(id: string): void {
    const title = this.rowElement(id)?.querySelector<HTMLInputElement>('.thread-title-input')?.value.trim() ?? '';
    this.renaming = null;
    if (title) this.actions.renameThread(id, title);
    this.render();
    this.focusRow(id, '.thread-rename');
  }

  private cancelEdit(): void {
    const id = this.renaming ?? this.confirming;
    const back = this.renaming ? '.thread-rename' : '.thread-delete';
    this.renaming = null;
    this.confirming = null;
    this.render();
    if (id) this.focusRow(id, back);
  }

  private onKey(e: KeyboardEvent): void {
    if (e.key === 'Enter' && e.target instanceof HTMLInputElement && e.target.classList.contains('thread-title-input')) {
      e.preventDefault();
      const id = e.target.closest<HTMLElement>('.thread-row')?.dataset.id;
      if (id) this.saveRename(id);
    } else if ((e.key === 'F2' || e.key === 'Delete') && e.target instanceof HTMLElement && e.target.classList.contains('thread-open')) {
      // The row's Rename and Delete from the keyboard, as in VS Code's lists.
      const row = e.target.closest<HTMLElement>('.thread-row');
      const id = row?.dataset.id;
      const del = row?.querySelector<HTMLButtonElement>('.thread-delete');
      if (!id || (e.key === 'Delete' && del?.disabled)) return;
      e.preventDefault();
      this.startEdit(id, e.key === 'F2' ? 'rename' : 'delete');
    } else if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      if (this.renaming || this.confirming) this.cancelEdit();
      else this.close();
    }
  }

  private rowElement(id: string): HTMLElement | null {
    for (const row of this.list.querySelectorAll<HTMLElement>('.thread-row')) if (row.dataset.id === id) return row;
    return null;
  }

  private focusRow(id: string, selector: string): void {
    this.rowElement(id)?.querySelector<HTMLElement>(selector)?.focus();
  }
}
