/**
 * The chat's agent picker: the chat's own backend and every ACP agent on offer (configured, or a
 * preset whose command is installed), as a native `<select>` (keyboard and screen readers for
 * free). Names are set as text, never as HTML. Picking one tells the host, which starts a new
 * conversation with it unless the one shown is still empty.
 */
import { BACKEND_AGENT, type ChatAgentOption } from '../protocol/webview';

export const BACKEND_LABEL = 'Client Tools backend';

export class AgentPicker {
  readonly root: HTMLSelectElement;
  private shown = '';

  constructor(private readonly pick: (name: string) => void) {
    this.root = document.createElement('select');
    this.root.className = 'agent-picker';
    this.root.setAttribute('aria-label', 'Agent');
    this.root.title = 'Which agent answers in this conversation';
    this.root.hidden = true;
    this.root.addEventListener('change', () => {
      const name = this.root.value;
      if (name === this.shown) return;
      this.pick(name);
    });
  }

  /** The host's list; hidden while only the backend is on offer. */
  update(agents: readonly ChatAgentOption[], current: string): void {
    const options = [{ name: BACKEND_AGENT, detail: 'The agent backend Client Tools connects to (clientTools.backendUrl, or the bundled one)' }, ...agents.filter((a) => a.name !== BACKEND_AGENT)];
    this.root.replaceChildren(...options.map((a) => {
      const option = document.createElement('option');
      option.value = a.name;
      option.textContent = a.name === BACKEND_AGENT ? BACKEND_LABEL : a.name;
      if (a.detail) option.title = a.detail;
      return option;
    }));
    this.shown = options.some((a) => a.name === current) ? current : BACKEND_AGENT;
    this.root.value = this.shown;
    this.root.hidden = options.length < 2;
  }
}
