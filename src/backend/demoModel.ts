/**
 * The offline demo model: deterministic, no network, used when no model is configured. It behaves
 * like a real model on a handful of requests (open a file, read the selection, show a message, read
 * a file, delete a file): it expands the collapsed group that holds the tool it needs, calls the
 * tool with arguments that fit the tool's schema, then answers from the result. Every answer says
 * it is the demo and how to configure a real model.
 */
import type { ContentItem } from '../protocol';
import { ErrorCode } from '../protocol';
import { EDITOR_CONTEXT_MARK } from './agent';
import type { ChatMessage, ChatModel, ModelChunk, ModelRequest } from './model';
import type { FunctionSpec } from './toolState';

export const DEMO_MODEL_NAME = 'offline-demo';

/** One short line under every answer: the chat is narrow and already shows an "Offline demo model" badge. */
export const OFFLINE_NOTICE = '_(offline demo model: run **Client Tools: Select Model** for a real one)_';

/** The full how-to, given with the help answer. */
const CONFIGURE =
  'To use a real model, set `clientTools.model.baseUrl` and `clientTools.model.name` (or run **Client Tools: Select Model**) and run **Client Tools: Set API Key**; ' +
  'for the CLI, set OPENAI_BASE_URL, CLIENT_TOOLS_MODEL and OPENAI_API_KEY.';

const EXAMPLES = ['open README.md', 'what did I select?', 'show a warning saying hi', 'read logo.png', 'delete notes.txt'];

/** Tool calls the demo makes for one request before it gives up and answers. */
const MAX_CALLS_PER_REQUEST = 4;

type Intent =
  | { kind: 'open'; path: string }
  | { kind: 'selection' }
  | { kind: 'message'; severity: 'info' | 'warning' | 'error'; text: string }
  | { kind: 'read'; path: string }
  | { kind: 'delete'; path: string }
  | { kind: 'unknown' };

type IntentKind = Intent['kind'];

/** Tool names that serve each request: the first pattern is preferred, the second is a looser match. */
const TOOL_PATTERNS: Record<Exclude<IntentKind, 'unknown'>, RegExp[]> = {
  open: [/^open_?file$/i, /^open/i],
  selection: [/^get_?(current_?|latest_?)?selection$/i, /selection/i],
  message: [/^show_?(message|notification)$/i, /message|notif/i],
  read: [/^read_?file$/i, /^read/i],
  delete: [/^delete_?file$/i, /^(delete|remove)/i],
};

export interface DemoModelOptions {
  /** Pause between streamed pieces of text, default 0 (one event-loop turn). */
  chunkDelayMs?: number;
}

export class DemoModel implements ChatModel {
  readonly name = DEMO_MODEL_NAME;
  readonly offline = true;
  private calls = 0;

  constructor(private readonly options: DemoModelOptions = {}) {}

  async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelChunk> {
    const step = decide(request);
    if (step.kind === 'call') {
      yield { type: 'toolCall', call: { id: `call_demo_${++this.calls}`, name: step.name, arguments: JSON.stringify(step.args) } };
      yield { type: 'finish', reason: 'tool_calls' };
      return;
    }
    for (const piece of pieces(`${step.text}\n\n${OFFLINE_NOTICE}`)) {
      if (signal.aborted) return;
      await pause(this.options.chunkDelayMs ?? 0);
      yield { type: 'text', text: piece };
    }
    yield { type: 'finish', reason: 'stop' };
  }
}

type Step = { kind: 'call'; name: string; args: Record<string, unknown> } | { kind: 'answer'; text: string };

interface PastCall {
  name: string;
  args: Record<string, unknown>;
  result?: Extract<ChatMessage, { role: 'tool' }>;
}

function decide(request: ModelRequest): Step {
  const lastUser = request.messages.map((m) => m.role).lastIndexOf('user');
  const userMessage = request.messages[lastUser];
  const [said, editorContext] = userMessage?.role === 'user' ? userMessage.content.split(EDITOR_CONTEXT_MARK) : [''];
  const words = said.trim();
  const past = pastCalls(request.messages.slice(lastUser + 1));
  const intent = parseIntent(words);
  if (intent.kind === 'unknown') return { kind: 'answer', text: editorContext ? aboutContext(words, editorContext) : help(words) };

  const patterns = TOOL_PATTERNS[intent.kind];
  const done = [...past].reverse().find((c) => patterns.some((p) => p.test(c.name)));
  if (done?.result) return { kind: 'answer', text: answer(intent, done.name, done.result) };
  if (past.length >= MAX_CALLS_PER_REQUEST) return { kind: 'answer', text: 'I tried several tools and none of them answered the request, so I stopped here.' };

  const tool = findFunction(request.tools, patterns);
  if (tool) return { kind: 'call', name: tool.name, args: argumentsFor(intent, tool) };

  const container = request.tools.find((f) => isContainerFor(f, patterns) && !past.some((c) => c.name === f.name));
  if (container) return { kind: 'call', name: container.name, args: {} };
  return { kind: 'answer', text: `I understood "${words}", but the editor offers no tool for it right now, so I could not do it.` };
}

function pastCalls(messages: ChatMessage[]): PastCall[] {
  const calls: PastCall[] = [];
  const byId = new Map<string, PastCall>();
  for (const m of messages) {
    if (m.role === 'assistant') {
      for (const c of m.toolCalls ?? []) {
        const call: PastCall = { name: c.name, args: safeParse(c.arguments) };
        calls.push(call);
        byId.set(c.id, call);
      }
    } else if (m.role === 'tool') {
      const call = byId.get(m.toolCallId);
      if (call) call.result = m;
    }
  }
  return calls;
}

function parseIntent(text: string): Intent {
  const path = (m: RegExpMatchArray | null) => m?.[1]?.replace(/[.,;:!?)]+$/, '');
  const del = path(text.match(/\b(?:delete|remove)\s+(?:the\s+file\s+)?["'`]?([^\s"'`]+)/i));
  if (del) return { kind: 'delete', path: del };
  const read = path(text.match(/\bread\s+(?:the\s+file\s+)?["'`]?([^\s"'`]+)/i));
  if (read) return { kind: 'read', path: read };
  const open = path(text.match(/\bopen\s+(?:the\s+file\s+)?["'`]?([^\s"'`]+)/i));
  if (open) return { kind: 'open', path: open };
  const show = text.match(/\b(?:show|display)\b.*?\b(warning|error|info(?:rmation)?|message|notification)\b.*?\bsaying\s+(.+)$/i);
  if (show) {
    const word = show[1].toLowerCase();
    const severity = word === 'warning' ? 'warning' : word === 'error' ? 'error' : 'info';
    const said = show[2].trim().replace(/^["'`“]+|["'`”.!]+$/g, '');
    return { kind: 'message', severity, text: said || show[2].trim() };
  }
  if (/\bselect(ed|ion)?\b/i.test(text)) return { kind: 'selection' };
  return { kind: 'unknown' };
}

function findFunction(functions: FunctionSpec[], patterns: RegExp[]): FunctionSpec | undefined {
  for (const p of patterns) {
    const f = functions.find((fn) => p.test(fn.name) && !isContainer(fn));
    if (f) return f;
  }
  return undefined;
}

function isContainer(f: FunctionSpec): boolean {
  return /collapsed tool group/.test(f.description);
}

/** A container whose description lists a tool that fits. */
function isContainerFor(f: FunctionSpec, patterns: RegExp[]): boolean {
  if (!isContainer(f)) return false;
  const names = f.description.split(/[^A-Za-z0-9_-]+/).filter(Boolean);
  return patterns.some((p) => names.some((n) => p.test(n)));
}

function argumentsFor(intent: Intent, tool: FunctionSpec): Record<string, unknown> {
  const props = (tool.parameters.properties ?? {}) as Record<string, { enum?: unknown[] }>;
  const names = Object.keys(props);
  const pick = (candidates: string[], fallback: string) => candidates.find((c) => names.includes(c)) ?? fallback;
  switch (intent.kind) {
    case 'open':
    case 'read':
    case 'delete': {
      const required = Array.isArray(tool.parameters.required) ? (tool.parameters.required as string[]) : [];
      return { [pick(['path', 'file', 'filePath', 'uri', 'filename', 'fileName'], required[0] ?? 'path')]: intent.path };
    }
    case 'message': {
      const args: Record<string, unknown> = { [pick(['message', 'text', 'body'], 'message')]: intent.text };
      const severityKey = ['severity', 'level', 'kind', 'type'].find((k) => names.includes(k));
      if (severityKey) {
        const allowed = props[severityKey]?.enum;
        const wanted = intent.severity === 'warning' ? ['warning', 'warn'] : intent.severity === 'error' ? ['error'] : ['info', 'information'];
        args[severityKey] = Array.isArray(allowed) ? (allowed.find((v) => wanted.includes(String(v))) ?? intent.severity) : intent.severity;
      }
      return args;
    }
    default:
      return {};
  }
}

function answer(intent: Intent, toolName: string, result: Extract<ChatMessage, { role: 'tool' }>): string {
  const target = 'path' in intent ? intent.path : undefined;
  if (result.errorCode === ErrorCode.PermissionDenied) {
    return intent.kind === 'delete' ? `You declined, so ${target} was not deleted.` : `You declined the request, so I did not run ${toolName}.`;
  }
  if (result.errorCode === ErrorCode.Skipped) return `You skipped ${toolName}, so nothing changed.`;
  if (result.errorCode) return `${toolName} failed: ${plainText(result.content)}`;

  switch (intent.kind) {
    case 'open':
      return `I opened ${target} in the editor.${describeExtra(result.content)}`;
    case 'delete':
      return `I deleted ${target}.${describeExtra(result.content)}`;
    case 'message':
      return `I showed ${intent.severity === 'info' ? 'a message' : `a${intent.severity === 'error' ? 'n' : ''} ${intent.severity}`} saying "${intent.text}".`;
    case 'selection':
      return describeSelection(result.content);
    case 'read':
      return describeFile(target ?? 'The file', result.content);
    default:
      return plainText(result.content);
  }
}

function describeSelection(content: ContentItem[]): string {
  const json = content.find((c) => c.type === 'json');
  let text: string | undefined;
  let file: string | undefined;
  let line: number | undefined;
  if (json?.type === 'json' && json.value && typeof json.value === 'object') {
    const v = json.value as Record<string, unknown>;
    if (v.activeEditor === false) return typeof v.message === 'string' ? v.message : 'No editor is active, so nothing is selected.';
    const range = (v.range && typeof v.range === 'object' ? v.range : {}) as Record<string, unknown>;
    const start = (range.start && typeof range.start === 'object' ? range.start : {}) as Record<string, unknown>;
    text = firstString(v.text, v.selectedText);
    file = firstString(v.file, v.fileName, v.path, v.uri);
    // `startLine` is 1-based (as the IDE tools report it); an LSP-style `start.line` is 0-based.
    line = typeof range.startLine === 'number' ? range.startLine : typeof start.line === 'number' ? start.line + 1 : undefined;
  } else {
    text = plainText(content);
  }
  if (!text) return `Nothing is selected right now${file ? ` in ${file}` : ''}.`;
  const where = [file ? `in ${file}` : '', line !== undefined ? `from line ${line}` : ''].filter(Boolean).join(' ');
  const excerpt = text.length > 200 ? `${text.slice(0, 200)}…` : text;
  return `You selected ${text.length} character${text.length === 1 ? '' : 's'}${where ? ` ${where}` : ''}:\n\n> ${excerpt.split('\n').join('\n> ')}`;
}

function describeFile(name: string, content: ContentItem[]): string {
  const binary = content.find((c) => c.type === 'binary');
  if (binary?.type === 'binary') {
    return `${binary.filename ?? name} is ${/^[aeiou]/i.test(binary.mimeType) ? 'an' : 'a'} ${binary.mimeType} file of ${binary.bytes.byteLength} bytes. I cannot look at images, but a real model with image input could.`;
  }
  const json = content.find((c) => c.type === 'json');
  if (json?.type === 'json') {
    const v = json.value as Record<string, unknown> | null;
    const inner = v && typeof v === 'object' ? firstString(v.content, v.text) : undefined;
    if (inner === undefined) return `${name}: ${summarizeJson(json.value)}.`;
    return describeText(name, inner);
  }
  return describeText(name, plainText(content));
}

function describeText(name: string, text: string): string {
  const lines = text.split('\n');
  const head = lines.slice(0, 3).join('\n> ');
  return `${name} has ${lines.length} line${lines.length === 1 ? '' : 's'} (${text.length} characters). It starts with:\n\n> ${head}`;
}

/** A short sentence about extra JSON a tool returned, or ''. */
function describeExtra(content: ContentItem[]): string {
  const json = content.find((c) => c.type === 'json');
  return json?.type === 'json' ? ` The tool reported ${summarizeJson(json.value)}.` : '';
}

export function summarizeJson(value: unknown): string {
  if (Array.isArray(value)) return `a list of ${value.length} item${value.length === 1 ? '' : 's'}`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    const shown = entries.slice(0, 6).map(([k, v]) => `${k}: ${short(v)}`);
    return entries.length > 6 ? `${shown.join(', ')} and ${entries.length - 6} more fields` : shown.join(', ') || 'an empty object';
  }
  return short(value);
}

function short(v: unknown): string {
  if (typeof v === 'string') return v.length > 60 ? `"${v.slice(0, 60)}…"` : `"${v}"`;
  if (Array.isArray(v)) return `${v.length} items`;
  if (v && typeof v === 'object') return `{${Object.keys(v).length} fields}`;
  return String(v);
}

function plainText(content: ContentItem[]): string {
  return content
    .map((c) => (c.type === 'text' ? c.text : c.type === 'json' ? JSON.stringify(c.value) : `[${c.mimeType}, ${c.bytes.byteLength} bytes]`))
    .join('\n');
}

function firstString(...values: unknown[]): string | undefined {
  return values.find((v): v is string => typeof v === 'string');
}

function help(words: string): string {
  const heard = words ? `I did not understand "${words.length > 80 ? `${words.slice(0, 80)}…` : words}". ` : '';
  return `${heard}As the offline demo model I understand only a few requests, for example:\n${EXAMPLES.map((e) => `- "${e}"`).join('\n')}\n\n${CONFIGURE}`;
}

/** A question sent with the editor's selection (Ask About Selection): show what was received. */
function aboutContext(words: string, context: string): string {
  const question = words.length > 200 ? `${words.slice(0, 200)}…` : words;
  return `You asked "${question}" about this part of your editor:\n${context.trim()}\n\nAs the offline demo model I cannot reason about it; a real model would answer your question here. ${CONFIGURE}`;
}

function safeParse(text: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Splits text into a few pieces at word boundaries, the way a model streams. */
function pieces(text: string): string[] {
  const words = text.split(/(?<=\s)/);
  const size = Math.max(1, Math.ceil(words.length / 6));
  const out: string[] = [];
  for (let i = 0; i < words.length; i += size) out.push(words.slice(i, i + size).join(''));
  return out;
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => (ms > 0 ? setTimeout(resolve, ms) : setImmediate(resolve)));
}
