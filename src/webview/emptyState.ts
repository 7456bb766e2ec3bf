/**
 * What an empty chat shows: what the agent can do, example requests to click, and, while the
 * offline demo model answers, a way to a real model. The examples are the chat's own text and work
 * on the sample workspace with the demo model and a real one alike (examplePrompts.ts).
 */
import type { ChatAction } from '../protocol/webview';
import { EXAMPLE_PROMPTS } from './examplePrompts';
import type { ChatState } from './state';

export interface EmptyStateActions {
  send(text: string): void;
  runAction(action: ChatAction): void;
}

export class EmptyState {
  readonly root: HTMLElement;
  private readonly examples: HTMLButtonElement[];
  private readonly demoNote: HTMLElement;

  constructor(actions: EmptyStateActions) {
    this.examples = EXAMPLE_PROMPTS.map((text) => {
      const b = element('button', 'example secondary', text);
      b.type = 'button';
      b.title = `Send "${text}"`;
      b.addEventListener('click', () => actions.send(text));
      return b;
    });
    const useRealModel = element('button', 'use-real-model', 'Use a real model');
    useRealModel.type = 'button';
    useRealModel.title = 'Choose a model endpoint, give its API key, and test the connection (Client Tools: Select Model)';
    useRealModel.addEventListener('click', () => actions.runAction('selectModel'));
    this.demoNote = element('div', 'demo-note');
    this.demoNote.append(
      element('p', '', 'The answers come from a scripted demo that runs offline: it understands a few plain requests like these and runs the real tools.'),
      useRealModel);
    const list = element('div', 'examples');
    list.setAttribute('role', 'group');
    list.setAttribute('aria-label', 'Example requests');
    list.append(...this.examples);
    this.root = element('div', 'empty');
    this.root.append(
      element('p', 'empty-title', 'Ask the agent about your code.'),
      element('p', '', 'It can use tools in your editor; anything that changes files asks for your permission first.'),
      element('p', 'section-label', 'Try one:'),
      list,
      this.demoNote);
  }

  update(state: ChatState): void {
    this.root.hidden = state.items.length > 0;
    this.demoNote.hidden = state.connection.offline !== true;
    const busy = state.run !== null || state.awaitingInput;
    for (const b of this.examples) b.disabled = busy;
  }
}

function element<K extends keyof HTMLElementTagNameMap>(tag: K, className: string, text?: string): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (className) el.className = className;
  if (text !== undefined) el.textContent = text;
  return el;
}
