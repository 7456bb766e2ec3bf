/**
 * The permission prompt in the chat (promptStyle `chat`): what will happen (the extension's line
 * naming the exact target, then the whole detail: the change, the command, the backend's quoted
 * description), Allow, the scoped Allow choices, and Deny with an optional reason the agent reads.
 *
 * Docked between the transcript and the composer, so it is on screen however far the transcript
 * scrolled. All text goes in as text nodes: nothing the backend wrote becomes a link or markup.
 * It never takes the keyboard; its buttons answer only after a short arming delay, so a click or a
 * key meant for what was there a moment before cannot answer a prompt that just appeared.
 */
import type { ChatApproval } from '../protocol/webview';
import { MAX_APPROVAL_REASON } from '../protocol/webview';

type Answer = 'allow' | 'deny' | ChatApproval['choices'][number]['answer'];

export type AnswerApproval = (requestId: string, answer: Answer, reason?: string) => void;

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
    if ((prompt?.requestId ?? null) === this.shown) return;
    this.shown = prompt?.requestId ?? null;
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
    const send = (answer: Answer): void => {
      if (buttons.some((b) => b.disabled)) return;
      for (const b of buttons) b.disabled = true;
      const said = reason.value.trim();
      this.answer(prompt.requestId, answer, answer === 'deny' && said ? said : undefined);
    };
    const button = (answer: Answer, label: string, className: string): HTMLButtonElement => {
      const b = el('button', `approval-button ${className}`, label);
      b.type = 'button';
      b.dataset.answer = answer;
      b.disabled = true;
      b.addEventListener('click', () => send(answer));
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

    this.root.append(head, el('p', 'approval-message', prompt.message), el('pre', 'approval-detail', prompt.detail), allowRow, denyRow);
    this.armTimer = setTimeout(() => {
      for (const b of buttons) b.disabled = false;
    }, ARMING_DELAY_MS);
  }
}
