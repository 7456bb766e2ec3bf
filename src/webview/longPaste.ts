/**
 * Long pastes stay short on screen. In the message box a paste of LONG_PASTE_LINES lines or
 * LONG_PASTE_CHARS characters becomes a placeholder, `[Pasted text #1 +312 lines]`, with a chip
 * under the box to put the text back (Expand); the whole text is what is sent (the placeholder is
 * replaced at Send, unless the user edited it). On a sent message, a long text shows its first lines
 * with Show all.
 */

export const LONG_PASTE_LINES = 20;
export const LONG_PASTE_CHARS = 2_000;
/** A long sent message shows this many lines until Show all. */
export const COLLAPSED_LINES = 4;
/** …and at most this many characters of them (a 300 px bubble stays a few lines high). */
export const COLLAPSED_CHARS = 240;

export function lineCount(text: string): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

export function isLong(text: string): boolean {
  return text.length >= LONG_PASTE_CHARS || lineCount(text) > LONG_PASTE_LINES;
}

/** The pastes the message box holds as placeholders, by placeholder. */
export class LongPastes {
  readonly strip = document.createElement('div');
  private readonly pastes = new Map<string, string>();
  private next = 1;

  constructor(private readonly input: HTMLTextAreaElement) {
    this.strip.className = 'pastes';
    this.strip.hidden = true;
    input.addEventListener('paste', (e) => {
      const text = e.clipboardData?.getData('text/plain') ?? '';
      if (!isLong(text)) return;
      e.preventDefault();
      const placeholder = `[Pasted text #${this.next++} +${lineCount(text)} lines]`;
      this.pastes.set(placeholder, text);
      input.setRangeText(placeholder, input.selectionStart, input.selectionEnd, 'end');
      input.dispatchEvent(new Event('input', { bubbles: true }));
    });
    input.addEventListener('input', () => this.render());
  }

  /** The message as sent: each placeholder still in it replaced by its text. */
  expand(text: string): string {
    let out = text;
    for (const [placeholder, pasted] of this.pastes) out = out.split(placeholder).join(pasted);
    return out;
  }

  /** After Send: the box is empty, nothing is held. */
  clear(): void {
    this.pastes.clear();
    this.render();
  }

  /** One chip per placeholder still in the box; a placeholder the user deleted or edited lets its text go. */
  private render(): void {
    const value = this.input.value;
    for (const placeholder of [...this.pastes.keys()]) if (!value.includes(placeholder)) this.pastes.delete(placeholder);
    this.strip.replaceChildren(...[...this.pastes].map(([placeholder, text]) => this.chip(placeholder, text)));
    this.strip.hidden = this.pastes.size === 0;
  }

  private chip(placeholder: string, text: string): HTMLElement {
    const chip = document.createElement('div');
    chip.className = 'paste-chip';
    chip.setAttribute('role', 'group');
    chip.setAttribute('aria-label', `${placeholder.slice(1, -1)}, ${text.length.toLocaleString('en-US')} characters`);
    const label = document.createElement('span');
    label.className = 'paste-label';
    label.textContent = placeholder.slice(1, -1);
    label.title = text.slice(0, 2_000);
    const expand = document.createElement('button');
    expand.type = 'button';
    expand.className = 'paste-expand secondary';
    expand.textContent = 'Expand';
    expand.setAttribute('aria-label', `Put the whole ${placeholder.slice(1, -1)} in the message box`);
    expand.addEventListener('click', () => {
      const at = this.input.value.indexOf(placeholder);
      if (at >= 0) this.input.setRangeText(text, at, at + placeholder.length, 'end');
      this.input.dispatchEvent(new Event('input', { bubbles: true }));
      this.input.focus();
    });
    chip.append(label, expand);
    return chip;
  }
}

/** A sent message's text: whole when short, else its first lines with Show all / Show less. */
export function userText(text: string): HTMLElement {
  const body = document.createElement('div');
  body.className = 'user-text';
  if (!isLong(text)) {
    body.textContent = text;
    return body;
  }
  const lines = lineCount(text);
  const head = text.split('\n').slice(0, COLLAPSED_LINES).join('\n').slice(0, COLLAPSED_CHARS);
  const wrap = document.createElement('div');
  wrap.className = 'user-text-long';
  const toggle = document.createElement('button');
  toggle.type = 'button';
  toggle.className = 'user-text-toggle secondary';
  const show = (all: boolean): void => {
    body.textContent = all ? text : `${head}…`;
    toggle.textContent = all ? 'Show less' : `Show all ${lines.toLocaleString('en-US')} lines (${text.length.toLocaleString('en-US')} characters)`;
    toggle.setAttribute('aria-expanded', String(all));
  };
  toggle.addEventListener('click', () => show(toggle.getAttribute('aria-expanded') !== 'true'));
  show(false);
  wrap.append(body, toggle);
  return wrap;
}
