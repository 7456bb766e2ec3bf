/**
 * A ShowMessage question the editor is waiting on, shown above the composer: the question, its
 * buttons and Give up. VS Code hides the notification after a while, and the run would otherwise
 * wait with nothing in the chat saying why. Built only from the extension's own record of a running
 * call (a card with a `recordId`, which the answer names); the labels are the model's text, shown as plain text, and a
 * click answers with the button's position, never with anything the text says.
 */
import type { ChatState, ToolItem } from './state';

/** The most buttons ShowMessage takes (src/tools/ide/showMessage.ts). */
const MAX_BUTTONS = 5;

interface Question {
  recordId: string;
  message: string;
  buttons: string[];
}

export class QuestionBanner {
  readonly root: HTMLElement;
  private readonly text: HTMLElement;
  private readonly buttons: HTMLElement;
  private shown: string | undefined;

  constructor(private readonly answer: (recordId: string, index: number | null) => void) {
    this.root = document.createElement('div');
    this.root.className = 'question-banner';
    this.root.setAttribute('role', 'group');
    this.root.setAttribute('aria-label', 'A question from the agent is waiting for your answer');
    this.root.hidden = true;
    const label = document.createElement('div');
    label.className = 'section-label';
    label.textContent = 'Waiting for your answer (also in the notification):';
    this.text = document.createElement('div');
    this.text.className = 'question-text';
    this.buttons = document.createElement('div');
    this.buttons.className = 'question-buttons';
    this.root.append(label, this.text, this.buttons);
  }

  update(state: ChatState): void {
    const question = waitingQuestion(state);
    const key = question ? `${question.recordId}\n${question.message}\n${question.buttons.join('\n')}` : undefined;
    if (key === this.shown) return;
    this.shown = key;
    this.root.hidden = !question;
    if (!question) {
      this.buttons.replaceChildren();
      return;
    }
    this.text.textContent = question.message;
    const choices = question.buttons.map((label, index) => this.button(label, 'question-answer', () => this.answer(question.recordId, index)));
    const giveUp = this.button('Give up', 'question-give-up secondary', () => this.answer(question.recordId, null));
    giveUp.title = 'Answer nothing: the agent is told you gave no answer';
    this.buttons.replaceChildren(...choices, giveUp);
  }

  private button(label: string, className: string, onClick: () => void): HTMLButtonElement {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = className;
    b.textContent = label;
    b.addEventListener('click', () => {
      for (const other of this.buttons.querySelectorAll('button')) other.disabled = true;
      onClick();
    });
    return b;
  }
}

/** The latest running ShowMessage call with buttons that the extension recorded. */
function waitingQuestion(state: ChatState): Question | undefined {
  for (let i = state.items.length - 1; i >= 0; i--) {
    const item = state.items[i];
    if (item.kind !== 'tool' || !isWaitingQuestion(item)) continue;
    const args = parseArgs(item.argsJson);
    const message = typeof args.message === 'string' ? args.message : '';
    const buttons = Array.isArray(args.buttons) ? args.buttons.filter((b): b is string => typeof b === 'string').slice(0, MAX_BUTTONS) : [];
    if (buttons.length > 0 && item.recordId !== undefined) return { recordId: item.recordId, message, buttons };
  }
  return undefined;
}

function isWaitingQuestion(item: ToolItem): boolean {
  return item.toolName === 'ShowMessage' && item.recordId !== undefined && item.status === 'running';
}

function parseArgs(json: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(json);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
