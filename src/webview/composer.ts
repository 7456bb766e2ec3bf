/**
 * The message box's keyboard and its attachment chip. Up in an empty box (or with the caret on its
 * first line while recalling) brings back the messages sent before, newest first, Down goes
 * forward again, as in a shell; the recalled messages are the transcript's, so they survive a
 * reload. Escape stops the run. Ask About Selection's text shows as a chip above the box that the
 * user can remove before sending, and by its label on the message it was sent with.
 */
import type { ChatAttachment } from '../protocol/webview';
import type { ChatState } from './state';

export interface ComposerKeyActions {
  stop(): void;
}

/** The user messages of the transcript, oldest first, without repeats of the one before. */
export function sentMessages(state: ChatState): string[] {
  const out: string[] = [];
  for (const item of state.items) {
    if (item.kind === 'user' && item.text !== out[out.length - 1]) out.push(item.text);
  }
  return out;
}

export class ComposerKeys {
  /** How far back Up went: 0 is the box as the user left it, 1 the last message sent, … */
  private recalled = 0;
  /** What the box held before recall started, given back when Down passes the newest message. */
  private draft = '';

  constructor(
    private readonly input: HTMLTextAreaElement,
    private readonly state: () => ChatState | undefined,
    private readonly actions: ComposerKeyActions,
  ) {
    input.addEventListener('keydown', (e) => this.onKey(e));
    // Typing ends recall: the next Up starts from the newest message again.
    input.addEventListener('input', () => { this.recalled = 0; });
  }

  /** Escape anywhere in the view stops a run (the history list handles its own Escape first). */
  onViewKey(e: KeyboardEvent): void {
    const s = this.state();
    if (e.key !== 'Escape' || e.defaultPrevented || !s?.run || s.run.stopRequested) return;
    e.preventDefault();
    this.actions.stop();
  }

  reset(): void {
    this.recalled = 0;
  }

  private onKey(e: KeyboardEvent): void {
    if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey || e.isComposing) return;
    if (e.key === 'ArrowUp' && this.caretOnFirstLine() && (this.recalled > 0 || this.input.value === '')) {
      const history = sentMessages(this.state() ?? ({ items: [] } as unknown as ChatState));
      if (this.recalled >= history.length) return;
      if (this.recalled === 0) this.draft = this.input.value;
      this.recalled++;
      this.show(history[history.length - this.recalled]);
      e.preventDefault();
    } else if (e.key === 'ArrowDown' && this.recalled > 0 && this.caretOnLastLine()) {
      const history = sentMessages(this.state() ?? ({ items: [] } as unknown as ChatState));
      this.recalled--;
      this.show(this.recalled === 0 ? this.draft : history[history.length - this.recalled]);
      e.preventDefault();
    }
  }

  private show(text: string): void {
    this.input.value = text;
    this.input.setSelectionRange(text.length, text.length);
  }

  private caretOnFirstLine(): boolean {
    return !this.input.value.slice(0, this.input.selectionStart).includes('\n');
  }

  private caretOnLastLine(): boolean {
    return !this.input.value.slice(this.input.selectionEnd).includes('\n');
  }
}

/** The chip for an attachment: its label and a remove button (a real button, so the keyboard reaches it). */
export function attachmentChip(attachment: ChatAttachment, remove: () => void): HTMLElement {
  const chip = document.createElement('div');
  chip.className = 'attachment-chip';
  chip.setAttribute('role', 'group');
  chip.setAttribute('aria-label', `Attached selection: ${attachment.label}`);
  const label = document.createElement('span');
  label.className = 'attachment-label';
  label.textContent = attachment.label;
  label.title = attachment.context.selectedText?.slice(0, 2000) ?? attachment.label;
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'attachment-remove secondary';
  button.setAttribute('aria-label', `Remove the attached selection ${attachment.label}`);
  button.textContent = '×';
  button.addEventListener('click', remove);
  chip.append(label, button);
  return chip;
}

/** On a sent message: the editor text that went with it, by its label (kept in the thread's history). */
export function sentAttachment(label: string): HTMLElement {
  const line = document.createElement('div');
  line.className = 'sent-attachment';
  line.title = `Sent with the editor selection ${label}`;
  const kind = document.createElement('span');
  kind.className = 'sent-attachment-kind';
  kind.textContent = 'Selection';
  const name = document.createElement('span');
  name.className = 'sent-attachment-label';
  name.textContent = label;
  line.append(kind, ' ', name);
  return line;
}
