/**
 * What a fake model endpoint answers a real agent, whatever its provider's wire: a list of steps,
 * one model reply each (some text, or one tool call by name with its arguments). The reply to a
 * request is the step whose index is the number of model replies already in the request's history,
 * so retries, token counts and side calls (titles, routers) never move the script along, and a
 * second prompt in the same session carries on where the first ended. Past the last step the
 * model says `done`.
 *
 * Tool names differ per agent (`mcp__acp__Read`, `mcp_clienttools_Echo`, `clienttools_Echo`, a
 * Codex namespace): a step names the tool as the agent offers it, or by the end of that name
 * (`Echo` matches `mcp__clienttools__Echo`); the fake resolves it against the request's own tool list.
 */

export type AgentStep =
  | { text: string }
  | { tool: string; args: Record<string, unknown>; text?: string };

/** One request as a fake received it, read into the same shape for every wire. */
export interface ModelRequest {
  wire: 'anthropic' | 'gemini' | 'openai-chat' | 'openai-responses';
  path: string;
  /** The request body as JSON. */
  body: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
  /** A request the script does not answer: token counts, titles, routers, requests without tools. */
  side: boolean;
  /** Model replies already in the history (the step this request gets, for a main request). */
  replies: number;
  /** The text of every tool result in the history, oldest first. */
  toolResults: string[];
  /** The tool names the agent offered in this request. */
  tools: string[];
}

export interface ResolvedStep {
  step: AgentStep;
  /** For a tool step: the offered name it resolved to. */
  toolName?: string;
}

/** The script's reply to a main request, with the tool name resolved; throws when a step names no offered tool. */
export function stepFor(steps: readonly AgentStep[], request: ModelRequest): ResolvedStep {
  const step = steps[request.replies] ?? { text: 'done' };
  if (!('tool' in step)) return { step };
  return { step, toolName: resolveTool(step.tool, request.tools) };
}

export function resolveTool(wanted: string, offered: readonly string[]): string {
  if (offered.includes(wanted)) return wanted;
  const matches = offered.filter((name) => name.endsWith(`__${wanted}`) || name.endsWith(`_${wanted}`) || name.endsWith(`.${wanted}`));
  if (matches.length === 1) return matches[0] as string;
  throw new Error(`the script names tool "${wanted}", but the agent offered ${matches.length === 0 ? 'no such tool' : `several: ${matches.join(', ')}`} (offered: ${offered.join(', ')})`);
}

/** Text of a tool result's content in any of the shapes the wires use (a string, parts, blocks). */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map(textOf).join('');
  if (content && typeof content === 'object') {
    const o = content as Record<string, unknown>;
    if (typeof o.text === 'string') return o.text;
    if ('content' in o) return textOf(o.content);
    if ('output' in o) return textOf(o.output);
    return JSON.stringify(o);
  }
  return content === undefined || content === null ? '' : String(content);
}

/** Splits text into at most `n` non-empty pieces, to stream it as several deltas. */
export function pieces(text: string, n = 3): string[] {
  if (text.length === 0) return [];
  const size = Math.max(1, Math.ceil(text.length / n));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** Reads a request body; answers 400 itself and resolves undefined when it is not JSON. */
export function readJson(req: import('node:http').IncomingMessage): Promise<Record<string, unknown> | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      if (text === '') return resolve({});
      try {
        const value = JSON.parse(text) as unknown;
        resolve(value && typeof value === 'object' && !Array.isArray(value) ? value as Record<string, unknown> : undefined);
      } catch {
        resolve(undefined);
      }
    });
  });
}

/** The recorded requests of one fake, with a wait for the next ones. */
export class RequestLog {
  readonly all: ModelRequest[] = [];
  private waiters: { test: () => boolean; resolve: () => void }[] = [];

  add(request: ModelRequest): void {
    this.all.push(request);
    for (const w of [...this.waiters]) {
      if (w.test()) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  }

  /** The requests the script answered (not side calls). */
  get main(): ModelRequest[] {
    return this.all.filter((r) => !r.side);
  }

  /** Resolves once a main request with `replies` model replies in its history arrived. */
  waitForStep(replies: number, timeoutMs = 60_000): Promise<ModelRequest> {
    const find = () => this.main.find((r) => r.replies === replies);
    const found = find();
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no model request for step ${replies} within ${timeoutMs} ms (main requests: ${this.main.map((r) => r.replies).join(', ')})`)), timeoutMs);
      this.waiters.push({ test: () => find() !== undefined, resolve: () => { clearTimeout(timer); resolve(find() as ModelRequest); } });
    });
  }
}

/** What every fake endpoint offers a test. */
export interface FakeModel {
  /** The base URL to give the agent (its provider's variable or config). */
  readonly baseUrl: string;
  readonly requests: RequestLog;
  /** Replaces the steps (the next request reads the new list). */
  setSteps(steps: AgentStep[]): void;
  close(): Promise<void>;
}
