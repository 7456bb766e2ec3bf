/**
 * The offline demo model: deterministic, no network, used when no model is configured. It behaves
 * like a real model on a handful of requests (demoIntents.ts: open, read or delete a file, read the
 * selection, show a message, find files, list open editors, diagnostics and workspace folders,
 * propose a change in a diff, replace a line, save, close a tab, run a command, find a symbol's
 * usages, search the text, what changed, the tasks): it expands the
 * collapsed group that holds the tool it needs, calls the tool with arguments that fit the tool's
 * schema, then answers from the result in a sentence. The help answer says it is the demo and how to
 * configure a real model (the chat's header labels every answer as the demo's).
 */
import type { ContentItem } from '../../protocol';
import { count as thousands, ErrorCode, measureText } from '../../protocol';
import { EDITOR_CONTEXT_MARK } from '../run/agent';
import { examplesFor, MAX_REQUEST_CHARS, normalPath, parseIntent, type Intent } from './demoIntents';
import { code, count, fenced, firstString, listed, strings, type Json } from './demoText';
import { describeGitChanges, describeReferences, describeSearch, describeTasks } from './ideAnswers';
import type { ChatMessage, ChatModel, ModelChunk, ModelRequest } from '../model/chatModel';
import type { FunctionSpec } from '../toolset/toolState';

export const DEMO_MODEL_NAME = 'offline-demo';

/** The full how-to, given with the help answer. */
const CONFIGURE =
  'To use a real model, set `clientTools.model.baseUrl` and `clientTools.model.name` (or run **Client Tools: Select Model**) and run **Client Tools: Set API Key**; ' +
  'for the CLI, set OPENAI_BASE_URL, CLIENT_TOOLS_MODEL and OPENAI_API_KEY.';

/** Tool calls the demo makes for one request before it gives up and answers. */
const MAX_CALLS_PER_REQUEST = 6;

type Understood = Exclude<Intent, { kind: 'unknown' }>;
type ToolKind = Understood['kind'];

/** Tool names that serve each kind of call: the first pattern is preferred, the later ones are looser matches. */
const TOOL_PATTERNS: Record<ToolKind, RegExp[]> = {
  open: [/^open_?file$/i, /^open/i],
  selection: [/^get_?(current_?|latest_?)?selection$/i, /selection/i],
  message: [/^show_?(message|notification)$/i, /message|notif/i],
  read: [/^read_?file$/i, /^read/i],
  delete: [/^delete_?file$/i, /^(delete|remove)/i],
  findFiles: [/^find_?files$/i, /^(find|search|glob)_?files/i],
  openEditors: [/^get_?open_?editors$/i, /open_?(editors|tabs)/i],
  diagnostics: [/^get_?diagnostics$/i, /diagnostic|problems/i],
  folders: [/^get_?workspace_?folders$/i, /workspace_?folders/i],
  diff: [/^open_?diff$/i, /^(show|propose)_?diff/i],
  applyEdit: [/^apply_?edits?$/i, /^(apply|replace)_?(text_?)?edits?/i],
  save: [/^save_?(document|file)$/i, /^save/i],
  close: [/^close_?tabs?$/i, /^close_?(editor|file)/i],
  run: [/^run_?in_?terminal$/i, /^(run|execute)_?(command|shell|in_?terminal)/i],
  references: [/^find_?references$/i, /^(find|get)_?(usages|references)/i],
  searchText: [/^search_?text$/i, /^(search|grep)_?(text|code|files_?content)$/i, /^grep$/i],
  gitChanges: [/^git_?status$/i, /^(scm|source_?control)_?status$/i],
  tasks: [/^list_?tasks$/i, /^(get|show)_?tasks$/i],
};

/** The calls one request takes, in order: replacing a line reads that line first to learn where it ends. */
function plan(intent: Understood): ToolKind[] {
  return intent.kind === 'applyEdit' ? ['read', 'applyEdit'] : [intent.kind];
}

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
    // No demo note under each answer: the chat's header says "Offline demo model" once, and the help answer says how to change it.
    for (const piece of pieces(step.text)) {
      if (signal.aborted) return;
      await pause(this.options.chunkDelayMs ?? 0);
      yield { type: 'text', text: piece };
    }
    yield { type: 'finish', reason: 'stop' };
  }
}

type Step = { kind: 'call'; name: string; args: Record<string, unknown> } | { kind: 'answer'; text: string };
type ToolMessage = Extract<ChatMessage, { role: 'tool' }>;

interface PastCall {
  name: string;
  args: Record<string, unknown>;
  result?: ToolMessage;
}

/** A call of this request's plan that came back. */
interface DoneCall {
  name: string;
  args: Record<string, unknown>;
  result: ToolMessage;
}

function decide(request: ModelRequest): Step {
  const lastUser = request.messages.map((m) => m.role).lastIndexOf('user');
  const userMessage = request.messages[lastUser];
  const [said, editorContext] = userMessage?.role === 'user' ? userMessage.content.split(EDITOR_CONTEXT_MARK) : [''];
  const words = said.trim();
  const past = pastCalls(request.messages.slice(lastUser + 1));
  if (words.length > MAX_REQUEST_CHARS) return { kind: 'answer', text: tooLong(words) };
  const intent = parseIntent(words);
  if (intent.kind === 'unknown') return { kind: 'answer', text: editorContext ? aboutContext(words, editorContext) : help(words, deletedFiles(request.messages)) };

  // Walk the plan: each step is done by the latest call of a fitting tool after the previous step's call.
  const done: DoneCall[] = [];
  let after = -1;
  for (const kind of plan(intent)) {
    const patterns = TOOL_PATTERNS[kind];
    const index = lastIndexWhere(past, (c, i) => i > after && c.result !== undefined && patterns.some((p) => p.test(c.name)));
    if (index < 0) return nextCall(request, past, intent, kind, done, words);
    const call = past[index] as DoneCall;
    if (call.result.errorCode) return { kind: 'answer', text: failure(intent, call.name, call.result) };
    done.push(call);
    after = index;
  }
  return { kind: 'answer', text: answer(intent, done[done.length - 1]) };
}

/** The call that moves the plan on: the tool itself when the model sees it, else the container of its collapsed group. */
function nextCall(request: ModelRequest, past: PastCall[], intent: Understood, kind: ToolKind, done: DoneCall[], words: string): Step {
  if (past.length >= MAX_CALLS_PER_REQUEST) return { kind: 'answer', text: 'I tried several tools and none of them answered the request, so I stopped here.' };
  // Pattern by pattern, so a collapsed group with the exact tool wins over a visible tool that only looks similar.
  for (const pattern of TOOL_PATTERNS[kind]) {
    const tool = request.tools.find((f) => !isContainer(f) && pattern.test(f.name));
    if (tool) {
      const args = argumentsFor(intent, kind, tool, done);
      return typeof args === 'string' ? { kind: 'answer', text: args } : { kind: 'call', name: tool.name, args };
    }
    const container = request.tools.find((f) => !past.some((c) => c.name === f.name) && containerLists(f, pattern));
    if (container) return { kind: 'call', name: container.name, args: {} };
  }
  const off = switchedOffTool(request, kind);
  if (off) return { kind: 'answer', text: `I could not do it: ${off} is switched off in your Tool Groups view. To use it, right-click ${off} there and choose Ask Every Time or Allow Without Asking.` };
  return { kind: 'answer', text: `I understood "${words}", but the editor offers no tool for it right now, so I could not do it.` };
}

/** Where the editor's `switched-off-tools` context item (src/vscode/toolGroups/switchedOffText.ts) starts in the system prompt. */
export const SWITCHED_OFF_SECTION = '## Context: switched-off-tools\n';

/** A tool for this kind of call that the user switched off, as the editor told the backend (`- Name (Group)` lines). */
function switchedOffTool(request: ModelRequest, kind: ToolKind): string | undefined {
  const first = request.messages[0];
  const system = first?.role === 'system' ? first.content : '';
  const at = system.indexOf(SWITCHED_OFF_SECTION);
  if (at < 0) return undefined;
  const section = system.slice(at + SWITCHED_OFF_SECTION.length).split('\n## ')[0] ?? '';
  const names = [...section.matchAll(/^- ([\w-]+) \(/gm)].map((m) => m[1] ?? '');
  for (const pattern of TOOL_PATTERNS[kind]) {
    const name = names.find((n) => pattern.test(n));
    if (name) return name;
  }
  return undefined;
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

function lastIndexWhere<T>(items: readonly T[], test: (item: T, index: number) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (test(items[i], i)) return i;
  return -1;
}

function isContainer(f: FunctionSpec): boolean {
  return /collapsed tool group/.test(f.description);
}

/** A container whose list of tools names one that fits (the group's own description is not searched: "open" there is not OpenFile). */
function containerLists(f: FunctionSpec, pattern: RegExp): boolean {
  if (!isContainer(f)) return false;
  const listed = f.description.match(/collapsed tool group "[^"]*" with \d+ tools?: ([^)]*)\)/)?.[1] ?? f.description;
  return listed.split(/[^A-Za-z0-9_-]+/).some((n) => n !== '' && pattern.test(n));
}

/** Arguments for the call, from the tool's own schema; or, when the call cannot be made, the answer instead. */
function argumentsFor(intent: Understood, kind: ToolKind, tool: FunctionSpec, done: DoneCall[]): Record<string, unknown> | string {
  const props = (tool.parameters.properties ?? {}) as Record<string, { enum?: unknown[] }>;
  const names = Object.keys(props);
  const pick = (candidates: string[], fallback: string) => candidates.find((c) => names.includes(c)) ?? fallback;
  const required = Array.isArray(tool.parameters.required) ? (tool.parameters.required as string[]) : [];
  const pathKey = () => pick(['path', 'file', 'filePath', 'uri', 'filename', 'fileName'], required[0] ?? 'path');
  switch (intent.kind) {
    case 'open':
    case 'read':
    case 'delete':
    case 'save':
    case 'close':
      return { [pathKey()]: intent.path };
    case 'message': {
      const args: Record<string, unknown> = { [pick(['message', 'text', 'body'], 'message')]: intent.text };
      const severityKey = ['severity', 'level', 'kind', 'type'].find((k) => names.includes(k));
      if (severityKey) {
        const allowed = props[severityKey]?.enum;
        const wanted = intent.severity === 'warning' ? ['warning', 'warn'] : intent.severity === 'error' ? ['error'] : ['info', 'information'];
        args[severityKey] = Array.isArray(allowed) ? (allowed.find((v) => wanted.includes(String(v))) ?? intent.severity) : intent.severity;
      }
      if (intent.buttons && names.includes('buttons')) args.buttons = intent.buttons;
      return args;
    }
    case 'findFiles':
      return { [pick(['pattern', 'glob', 'include'], 'pattern')]: intent.pattern };
    case 'diagnostics':
      return intent.path === undefined ? {} : { [pathKey()]: intent.path };
    case 'diff':
      return { [pathKey()]: intent.path, [pick(['newContent', 'content', 'proposed', 'text'], 'newContent')]: intent.content };
    case 'run':
      return { [pick(['command', 'commandLine', 'cmd'], 'command')]: intent.command };
    case 'references':
      return { [pick(['symbol', 'name', 'query'], 'symbol')]: intent.symbol };
    case 'searchText':
      return { [pick(['query', 'pattern', 'text'], 'query')]: intent.query };
    case 'applyEdit':
      if (kind === 'read') {
        // Only the line to replace, when the tool can read a range.
        const range = names.includes('startLine') && names.includes('endLine') ? { startLine: intent.line, endLine: intent.line } : {};
        return { [pathKey()]: intent.path, ...range };
      }
      return lineEdit(intent, done[0]);
    default:
      return {};
  }
}

/** ApplyEdit's arguments that replace the whole of one line, whose length the read before told. */
function lineEdit(intent: Extract<Intent, { kind: 'applyEdit' }>, read: DoneCall | undefined): Record<string, unknown> | string {
  const text = read && textOf(read.result.content);
  if (text === undefined) return `${intent.path} is not a text file, so I cannot replace a line in it.`;
  const lines = text.split(/(?<=\n)/);
  const readOneLine = read?.args.startLine === intent.line;
  const line = readOneLine ? text : lines[intent.line - 1];
  if (line === undefined) return `${intent.path} has only ${lines.length} line${lines.length === 1 ? '' : 's'}, so there is no line ${intent.line} to replace.`;
  const length = line.replace(/\r?\n$/, '').length;
  return {
    path: intent.path,
    edits: [{ startLine: intent.line, startColumn: 1, endLine: intent.line, endColumn: length + 1, newText: intent.text }],
  };
}

/** The text of a read: a text item, or `content`/`text` of a JSON one. */
function textOf(content: ContentItem[]): string | undefined {
  for (const c of content) {
    if (c.type === 'text') return c.text;
    if (c.type === 'json' && c.value && typeof c.value === 'object') {
      const v = c.value as Record<string, unknown>;
      const inner = firstString(v.content, v.text);
      if (inner !== undefined) return inner;
    }
  }
  return undefined;
}

/** The answer to a call that was denied, skipped or failed. */
function failure(intent: Understood, toolName: string, result: ToolMessage): string {
  if (result.errorCode === ErrorCode.PermissionDenied) {
    switch (intent.kind) {
      case 'delete':
        return `You declined, so ${intent.path} was not deleted.`;
      case 'applyEdit':
        return `You declined, so ${intent.path} was not changed.`;
      case 'diff':
        return `You declined, so I did not show the proposed change to ${intent.path}.`;
      case 'run':
        return `You declined, so I did not run ${code(intent.command)}.`;
      default:
        return `You declined the request, so I did not run ${toolName}.`;
    }
  }
  if (result.errorCode === ErrorCode.Skipped) return `You skipped ${toolName}, so nothing changed.`;
  if (intent.kind === 'gitChanges' && result.errorCode === ErrorCode.NotFound) return 'VS Code has no Git repository open for this workspace, so there are no changes to show.';
  if (intent.kind === 'references' && result.errorCode === ErrorCode.NotFound) return `I found no symbol named ${code(intent.symbol)} in the workspace.`;
  if (intent.kind === 'applyEdit' && TOOL_PATTERNS.read.some((p) => p.test(toolName))) {
    return `I could not read line ${intent.line} of ${intent.path}, so I changed nothing. ${toolName} said: ${plainText(result.content)}`;
  }
  return `${toolName} failed: ${plainText(result.content)}`;
}

function answer(intent: Understood, call: DoneCall): string {
  const content = call.result.content;
  const json = jsonOf(content);
  switch (intent.kind) {
    case 'open':
      return `I opened ${intent.path} in the editor.${describeExtra(content)}`;
    case 'delete':
      return `I deleted ${intent.path}.${describeExtra(content)}`;
    case 'message':
      if (intent.buttons) return describeAnswer(intent.text, json);
      return `I showed ${intent.severity === 'info' ? 'a message' : `a${intent.severity === 'error' ? 'n' : ''} ${intent.severity}`} saying "${intent.text}".`;
    case 'selection':
      return describeSelection(content);
    case 'read':
      return describeFile(intent.path, content);
    case 'findFiles':
      return json ? describeFoundFiles(intent.pattern, json) : plainText(content);
    case 'openEditors':
      return json ? describeOpenEditors(json) : plainText(content);
    case 'diagnostics':
      return json ? describeDiagnostics(intent.path, json) : plainText(content);
    case 'folders':
      return json ? describeFolders(json) : plainText(content);
    case 'diff':
      return json ? describeDiffDecision(intent.path, json) : plainText(content);
    case 'applyEdit':
      return json ? describeLineEdit(intent, json) : plainText(content);
    case 'save':
      return json ? describeSave(intent.path, json) : plainText(content);
    case 'close':
      return json ? describeClose(intent.path, json) : plainText(content);
    case 'run':
      return json ? describeCommand(intent.command, json) : plainText(content);
    case 'references':
      return json ? describeReferences(intent.symbol, json) : plainText(content);
    case 'searchText':
      return json ? describeSearch(intent.query, json) : plainText(content);
    case 'gitChanges':
      return json ? describeGitChanges(json) : plainText(content);
    case 'tasks':
      return json ? describeTasks(json) : plainText(content);
  }
}

function jsonOf(content: ContentItem[]): Json | undefined {
  const json = content.find((c) => c.type === 'json');
  return json?.type === 'json' && json.value && typeof json.value === 'object' && !Array.isArray(json.value) ? (json.value as Json) : undefined;
}

function describeFoundFiles(pattern: string, v: Json): string {
  const files = strings(v.files);
  if (files.length === 0) return `No files match ${code(pattern)}.`;
  const more = v.truncated === true ? ' More matched than were returned.' : '';
  return `Found ${count(files.length, 'file')} matching ${code(pattern)}: ${listed(files, 10)}.${more}`;
}

function describeOpenEditors(v: Json): string {
  const editors = Array.isArray(v.editors) ? (v.editors as Json[]) : [];
  if (editors.length === 0) return 'No editors are open.';
  const names = editors.map((e) => {
    const notes = [e.active === true ? 'active' : '', e.dirty === true ? 'unsaved changes' : ''].filter(Boolean);
    return `${firstString(e.path, e.label) ?? '?'}${notes.length ? ` (${notes.join(', ')})` : ''}`;
  });
  return `${count(editors.length, 'editor')} ${editors.length === 1 ? 'is' : 'are'} open: ${listed(names, 10)}.`;
}

function describeDiagnostics(path: string | undefined, v: Json): string {
  const where = path ?? 'the workspace';
  const total = typeof v.total === 'number' ? v.total : 0;
  if (total === 0) return `No problems in ${where}.`;
  const counts = (v.counts && typeof v.counts === 'object' ? v.counts : {}) as Record<string, unknown>;
  const words: Record<string, string> = { error: 'error', warning: 'warning', information: 'info', hint: 'hint' };
  const byKind = Object.entries(words)
    .filter(([k]) => typeof counts[k] === 'number' && counts[k] > 0)
    .map(([k, word]) => count(counts[k] as number, word));
  const shown = (Array.isArray(v.diagnostics) ? (v.diagnostics as Json[]) : []).slice(0, 5).map((d) => {
    const range = (d.range && typeof d.range === 'object' ? d.range : {}) as Json;
    const line = typeof range.startLine === 'number' ? `:${range.startLine}` : '';
    return `- ${firstString(d.path) ?? '?'}${line} ${firstString(d.severity) ?? ''}: ${firstString(d.message) ?? ''}`;
  });
  const rest = total > shown.length ? `\n- … and ${total - shown.length} more` : '';
  return `${count(total, 'problem')} in ${where}${byKind.length ? ` (${byKind.join(', ')})` : ''}:\n\n${shown.join('\n')}${rest}`;
}

function describeFolders(v: Json): string {
  const folders = Array.isArray(v.folders) ? (v.folders as Json[]) : [];
  const trust = v.trusted === false ? ' The workspace is in restricted mode (not trusted).' : v.trusted === true ? ' The workspace is trusted.' : '';
  if (folders.length === 0) return `No workspace folder is open.${trust}`;
  const names = folders.map((f) => `${firstString(f.name) ?? '?'}${typeof f.path === 'string' ? ` (${f.path})` : ''}`);
  return `${count(folders.length, 'workspace folder')} ${folders.length === 1 ? 'is' : 'are'} open: ${listed(names, 10)}.${trust}`;
}

function describeDiffDecision(path: string, v: Json): string {
  const file = firstString(v.path) ?? path;
  if (v.unchanged === true) return `${file} already has that content, so there was nothing to change.`;
  if (v.decision === 'accepted') {
    return v.editedByUser === true ? `You accepted the change to ${file}, with your own edits, and it is saved.` : `You accepted the change to ${file}, and it is saved.`;
  }
  if (v.decision === 'rejected') return `You rejected the change to ${file}, so it is unchanged.`;
  if (v.decision === 'partial') {
    const hunks = (key: string) => (Array.isArray(v[key]) ? (v[key] as unknown[]).join(', ') : '');
    return `You accepted part of the change to ${file} (kept hunks: ${hunks('keptHunks') || 'none'}; rejected: ${hunks('rejectedHunks') || 'none'}), and it is saved.`;
  }
  return `The review of ${file} ended: ${summarizeJson(v)}.`;
}

function describeLineEdit(intent: Extract<Intent, { kind: 'applyEdit' }>, v: Json): string {
  const file = firstString(v.path) ?? intent.path;
  const saved = v.saved === true ? ' and saved it' : '';
  const unsaved = v.saved !== true && v.dirty === true ? ` It is not saved yet: say "save ${file}" to save it.` : '';
  return `I replaced line ${intent.line} of ${file}${saved}.${unsaved}`;
}

function describeSave(path: string, v: Json): string {
  const file = firstString(v.path) ?? path;
  switch (v.status) {
    case 'saved':
      return `I saved ${file}.`;
    case 'notDirty':
      return `${file} had no unsaved changes, so there was nothing to save.`;
    case 'notOpen':
      return `${file} is not open in the editor, so it has no unsaved changes to save.`;
    default:
      return v.saved === true ? `I saved ${file}.` : `${file}: ${summarizeJson(v)}.`;
  }
}

function describeClose(path: string, v: Json): string {
  const file = firstString(v.path) ?? path;
  const closed = typeof v.closed === 'number' ? v.closed : 0;
  const keptDirty = typeof v.keptDirty === 'number' ? v.keptDirty : 0;
  const kept = keptDirty > 0 ? ` ${count(keptDirty, 'tab')} with unsaved changes stayed open; save ${file} first to close ${keptDirty === 1 ? 'it' : 'them'}.` : '';
  if (closed === 0) return keptDirty > 0 ? `I did not close ${file}.${kept}` : `No tab showed ${file}, so there was nothing to close.`;
  return `I closed ${closed === 1 ? file : `${closed} tabs showing ${file}`}.${kept}`;
}

/** Shown lines of a command's output; the rest is counted. */
const OUTPUT_LINES = 10;

function describeCommand(command: string, v: Json): string {
  // trimEnd, not /\s+$/: the output comes from the client, and that pattern rescans every run of spaces from each of its positions.
  const output = typeof v.output === 'string' ? v.output.trimEnd() : '';
  const how = v.timedOut === true
    ? `${code(command)} was stopped at the time limit`
    : typeof v.exitCode === 'number'
      ? `Exit code ${v.exitCode} from ${code(command)}`
      : `${code(command)} ended without an exit code`;
  if (output === '') return `${how}, with no output.`;
  const lines = output.split('\n');
  const rest = lines.length > OUTPUT_LINES ? `\n\n(${count(lines.length - OUTPUT_LINES, 'more line')})` : '';
  return `${how}:\n\n${fenced(lines.slice(0, OUTPUT_LINES).join('\n'))}${rest}`;
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
  // The thread keeps a long result as its head and tail around a marker naming the whole (historyBudget.ts):
  // the sentence tells the original's size, never the excerpt's.
  const cut = OMITTED.exec(text);
  if (cut) {
    return `${name} has ${thousands(Number(cut[3]))} line${cut[3] === '1' ? '' : 's'} (${thousands(Number(cut[4]))} bytes); I was given its start and end, lines ${thousands(Number(cut[1]))} to ${thousands(Number(cut[2]))} were left out to keep the conversation small. It starts with:\n\n> ${head}`;
  }
  const size = measureText(text);
  return `${name} has ${thousands(size.lines)} line${size.lines === 1 ? '' : 's'} (${thousands(size.bytes)} bytes). It starts with:\n\n> ${head}`;
}

const OMITTED = /\n\[\.\.\. \d+ bytes omitted \(lines (\d+) to (\d+) of (\d+)\); the whole text is (\d+) bytes \.\.\.\]\n/;

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

/** What the user chose in a ShowMessage with buttons ({"chosen": label | null}). */
function describeAnswer(question: string, json: unknown): string {
  const chosen = json && typeof json === 'object' ? (json as Record<string, unknown>).chosen : undefined;
  return typeof chosen === 'string' ? `I asked "${question}" and you answered "${chosen}".` : `I asked "${question}" and you gave no answer.`;
}

function help(words: string, deleted: ReadonlySet<string> = new Set()): string {
  const heard = words ? `I did not understand "${words.length > 80 ? `${words.slice(0, 80)}…` : words}". ` : '';
  return `${heard}As the offline demo model I understand only simple requests like these:\n${examplesFor(deleted).map((e) => `- "${e}"`).join('\n')}\n\n${CONFIGURE}`;
}

/** The files this conversation deleted and did not write again since (a successful delete, then a successful proposal or edit). */
function deletedFiles(messages: ChatMessage[]): Set<string> {
  const deleted = new Set<string>();
  for (const call of pastCalls(messages)) {
    const target = ['path', 'file', 'filePath', 'uri'].map((k) => call.args[k]).find((v): v is string => typeof v === 'string');
    if (!target || !call.result || call.result.errorCode) continue;
    if (TOOL_PATTERNS.delete.some((p) => p.test(call.name))) deleted.add(normalPath(target));
    else if ([...TOOL_PATTERNS.diff, ...TOOL_PATTERNS.applyEdit].some((p) => p.test(call.name))) deleted.delete(normalPath(target));
  }
  return deleted;
}

/** A request longer than the parser reads: say so rather than act on part of it. */
function tooLong(words: string): string {
  return `Your message is ${words.length.toLocaleString('en-US')} characters long; the offline demo model reads requests of up to ${MAX_REQUEST_CHARS.toLocaleString('en-US')} characters, so I did nothing with it. ${help('')}`;
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
