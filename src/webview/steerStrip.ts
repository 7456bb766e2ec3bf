/**
 * The messages typed while a run works, above the message box: each with what will happen to it
 * ("at the agent's next tool call", or "after this run" once the backend handed it back), **Edit**
 * (takes it back and puts its text in the message box) and **Cancel** (takes it back). All text
 * goes in as text nodes. The state is src/webview/steers.ts's.
 */
import type { PendingSteer } from './steers';

export interface SteerStripActions {
  /** Take the message back; `edit` also puts its text in the message box. */
  withdraw(steer: PendingSteer, edit: boolean): void;
}

export class SteerStrip {
  readonly root = document.createElement('section');
  private shown: readonly PendingSteer[] = [];

  constructor(private readonly actions: SteerStripActions) {
    this.root.className = 'steers';
    this.root.hidden = true;
    this.root.setAttribute('aria-label', 'Messages waiting for the agent');
  }

  update(steers: readonly PendingSteer[]): void {
    if (steers === this.shown) return;
    this.shown = steers;
    this.root.hidden = steers.length === 0;
    this.root.replaceChildren(...steers.map((s) => this.row(s)));
  }

  private row(steer: PendingSteer): HTMLElement {
    const row = document.createElement('div');
    row.className = `steer steer-${steer.state}`;
    row.dataset.steerId = steer.steerId;
    const when = document.createElement('span');
    when.className = 'steer-when';
    when.textContent = steer.state === 'returned' ? 'Sent after this run:' : 'Queued for the agent\u2019s next tool call:';
    const text = document.createElement('span');
    text.className = 'steer-text';
    text.textContent = steer.text;
    row.append(when, text);
    if (steer.state === 'pending') {
      row.append(this.button('Edit', 'steer-edit', () => this.actions.withdraw(steer, true)), this.button('Cancel', 'steer-cancel', () => this.actions.withdraw(steer, false)));
    }
    return row;
  }

  private button(label: string, className: string, onClick: () => void): HTMLButtonElement {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = `secondary ${className}`;
    b.textContent = label;
    b.addEventListener('click', onClick);
    return b;
  }
}
