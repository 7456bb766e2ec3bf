/**
 * The permission prompt in the chat (promptStyle `chat`): what will happen (the extension's line
 * naming the exact target, then the whole detail: the change, the command, the backend's quoted
 * description), Allow, the scoped Allow choices, and Deny with an optional reason the agent reads.
 *
 * Docked between the transcript and the composer, so it is on screen however far the transcript
 * scrolled. All text goes in as text nodes: nothing the backend wrote becomes a link or markup.
 * It never takes the keyboard; its buttons answer only after a short arming delay, so a click or a
 * key meant for what was there a moment before cannot answer a prompt that just appeared.
 *
 * An answer names the prompt by the id the extension minted for it and carries the SHA-256 of the
 * texts this card put on screen, read back from its own elements; the extension refuses an answer
 * whose prompt is not open or whose digest is not that prompt's. The card is rebuilt whenever the
 * prompt's id or digest changes, never kept for another prompt that reuses a request id.
 */
import type { ChatApproval } from '../protocol/webview';
import { approvalDigestInput, MAX_APPROVAL_REASON } from '../protocol/webview';
import { ApprovalEditField } from './approvalEdit';
import { inlineCodePieces } from './inlineCode';

type Answer = 'allow' | 'deny' | ChatApproval['choices'][number]['answer'];

export type AnswerApproval = (promptId: string, digest: string, answer: Answer, reason?: string, edited?: string) => void;

/** How long a newly shown prompt's buttons stay disabled. */
const ARMING_DELAY_MS = 600;

const DENYING: ReadonlySet<Answer> = new Set(['denyAll', 'disconnect']);

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

export class ApprovalCard {
  readonly root = el('section', 'approval');
  private shown: string | null = null;
  private armTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly answer: AnswerApproval) {
    this.root.hidden = true;
    this.root.setAttribute('aria-label', 'Permission request');
  }

  /** Shows `prompt` (rebuilt only when another prompt replaces it, so a reason being typed stays). */
  update(prompt: ChatApproval | null): void {
    const key = prompt ? `${prompt.promptId} ${prompt.digest}` : null;
    if (key === this.shown) return;
    this.shown = key;
    if (this.armTimer !== undefined) clearTimeout(this.armTimer);
    this.root.replaceChildren();
    this.root.hidden = prompt === null;
    if (prompt) this.build(prompt);
  }

  private build(prompt: ChatApproval): void {
    const buttons: HTMLButtonElement[] = [];
    const reason = el('input', 'approval-reason');
    reason.type = 'text';
    reason.maxLength = MAX_APPROVAL_REASON;
    reason.placeholder = 'Why not? (optional; the agent reads it)';
    reason.setAttribute('aria-label', 'Reason for Deny, optional; the agent reads it');
    let shownDigest: string | undefined;
    const send = (answer: Answer, edited?: string): void => {
      if (shownDigest === undefined || buttons.some((b) => b.disabled)) return;
      for (const b of buttons) b.disabled = true;
      const said = reason.value.trim();
      this.answer(prompt.promptId, shownDigest, answer, answer === 'deny' && said ? said : undefined, edited);
    };
    const editField = prompt.editable ? new ApprovalEditField(prompt.editable, (value) => send('edit', value), (b) => {
      b.disabled = true;
      buttons.push(b);
    }) : undefined;
    const button = (answer: Answer, label: string, className: string): HTMLButtonElement => {
      const b = el('button', `approval-button ${className}`, label);
      b.type = 'button';
      b.dataset.answer = answer;
      b.disabled = true;
      // Edit opens the field; only the field's own button answers.
      b.addEventListener('click', () => (answer === 'edit' ? editField?.open() : send(answer)));
      buttons.push(b);
      return b;
    };
    // Enter in the reason field denies: the only answer a stray Enter can give is the safe one.
    reason.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && !e.isComposing) {
        e.preventDefault();
        send('deny');
      }
    });

    const head = el('div', 'approval-head');
    head.append(el('span', 'approval-icon', '⚠'), el('strong', 'approval-tool', prompt.toolName), document.createTextNode(' asks for your permission'));
    const allowRow = el('div', 'approval-actions');
    allowRow.append(button('allow', 'Allow', 'allow'));
    for (const c of prompt.choices) if (!DENYING.has(c.answer)) allowRow.append(button(c.answer, c.label, 'secondary'));
    const denyRow = el('div', 'approval-actions deny-row');
    denyRow.append(reason, button('deny', 'Deny', 'deny'));
    for (const c of prompt.choices) if (DENYING.has(c.answer)) denyRow.append(button(c.answer, c.label, 'secondary'));

    const tool = head.querySelector('.approval-tool')!;
    // The title's `code` shows as code (text nodes only); the digest reads back the text as sent.
    const message = el('p', 'approval-message');
    appendInlineCode(message, prompt.message);
    const detail = el('pre', 'approval-detail', prompt.detail);
    detail.tabIndex = 0;
    this.root.append(head, message, detail, allowRow, ...(editField ? [editField.root] : []), denyRow);
    // What is on screen, read back from the card itself, is what the answer vouches for.
    const labels = new Map(buttons.map((b) => [b.dataset.answer, b.textContent ?? '']));
    const onScreen = approvalDigestInput({
      toolName: tool.textContent ?? '',
      groupName: prompt.groupName,
      message: inlineCodeSource(message),
      detail: detail.textContent ?? '',
      choices: prompt.choices.map((c) => ({ answer: c.answer, label: labels.get(c.answer) ?? '' })),
    });
    const key = this.shown;
    const armed = new Promise<void>((resolve) => (this.armTimer = setTimeout(resolve, ARMING_DELAY_MS)));
    void Promise.all([sha256Hex(onScreen), armed]).then(([digest]) => {
      if (this.shown !== key) return;
      shownDigest = digest;
      for (const b of buttons) b.disabled = false;
    });
  }
}

/** Appends `text` with its code spans as <code> elements (text nodes only), each keeping its source. */
function appendInlineCode(parent: HTMLElement, text: string): void {
  for (const piece of inlineCodePieces(text)) {
    if (piece.source === undefined) {
      parent.append(piece.text);
      continue;
    }
    const code = el('code', 'inline-code', piece.text);
    code.dataset.source = piece.source;
    parent.append(code);
  }
}

/** The text `appendInlineCode` was given, read back from `parent`'s nodes. */
function inlineCodeSource(parent: HTMLElement): string {
  let text = '';
  for (const node of parent.childNodes) text += node instanceof HTMLElement && node.dataset.source !== undefined ? node.dataset.source : (node.textContent ?? '');
  return text;
}

async function sha256Hex(text: string): Promise<string> {
  const bytes = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
