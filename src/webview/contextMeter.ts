/**
 * The context meter in the chat's status line: how much of the model's context window the
 * conversation's next request takes (tokens as the backend counts them, an estimate), as a bar and
 * "12k / 128k", with **Compact now**, which asks the backend to summarise every turn before the
 * newest. Shown once the backend has said (`contextUsage`); Compact now only between runs.
 */
import { formatTokens } from './format';

export interface ContextUse {
  tokens: number;
  contextWindow: number;
  estimated: boolean;
}

export class ContextMeter {
  readonly root = document.createElement('span');
  private readonly bar = document.createElement('span');
  private readonly fill = document.createElement('span');
  private readonly label = document.createElement('span');
  private readonly compact = document.createElement('button');

  constructor(onCompact: () => void) {
    this.root.className = 'context-meter';
    this.root.hidden = true;
    this.bar.className = 'context-bar';
    this.bar.setAttribute('role', 'meter');
    this.bar.setAttribute('aria-valuemin', '0');
    this.bar.setAttribute('aria-valuemax', '100');
    this.fill.className = 'context-fill';
    this.bar.append(this.fill);
    this.label.className = 'context-label';
    this.compact.type = 'button';
    this.compact.className = 'secondary context-compact';
    this.compact.textContent = 'Compact now';
    this.compact.title = 'Summarise the conversation before the last message, so it takes less of the model\u2019s context window';
    this.compact.addEventListener('click', () => {
      this.compact.disabled = true;
      onCompact();
    });
    this.root.append(this.bar, this.label, this.compact);
  }

  update(use: ContextUse | null, running: boolean): void {
    this.root.hidden = use === null;
    this.compact.disabled = running;
    if (!use) return;
    const percent = Math.min(100, Math.round((use.tokens / use.contextWindow) * 100));
    this.fill.style.width = `${percent}%`;
    this.bar.setAttribute('aria-valuenow', String(percent));
    this.bar.setAttribute('aria-label', `Context window ${percent}% used`);
    this.root.classList.toggle('context-high', percent >= 80);
    this.label.textContent = `${formatTokens(use.tokens)} / ${formatTokens(use.contextWindow)}`;
    this.root.title = `This conversation's next request takes ${use.estimated ? 'about ' : ''}${use.tokens} of the model's ${use.contextWindow} tokens (${percent}%)`;
  }
}
