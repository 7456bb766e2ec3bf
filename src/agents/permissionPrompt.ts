/**
 * The permission prompt for an agent's `session/request_permission`, built from the tool call as
 * the agent described it (announced and asked): the exact target in one line (the command and its
 * folder for `execute`, the file for an edit or a read, the URL for a fetch) and the rest in the
 * detail (the whole proposed diff, the raw input). Paths are resolved against the workspace with
 * the tools' own rules: one outside it or a protected one is named as such and never remembered.
 * A remembered "allow" is offered only for a read or an edit of one ordinary workspace file.
 * Everything is consent text, never cut: what does not fit the prompt is refused whole by the gate.
 */
import { consent, consentLines, MAX_SHOWN_VALUE_CHARS, type ConsentText } from '../core/consent/consentText';
import type { GrantTarget } from '../core/consent/grants';
import type { WorkspaceFolder } from '../core/host';
import { splitLines, unifiedDiff } from '../core/lineDiff';
import { resolveWorkspacePath } from '../core/paths';
import { grantTargetOf } from '../core/tool';
import { toolKey } from '../core/consent/toolIdentity';
import { codeSpan } from '../tools/support/commandText';
import type { AgentToolCall } from './agentCallbacks';

export interface AgentPrompt {
  /** The identity key grants are kept under (src/core/consent/toolIdentity.ts): this agent's tool of this kind. */
  toolKey: string;
  toolName: string;
  groupName: string;
  message: string;
  /** Consent text: the agent's words and every line of a diff or input each one value, never cut. */
  detail: ConsentText;
  rememberable: boolean;
  target?: GrantTarget;
}

export interface PromptWorkspace {
  folders: readonly WorkspaceFolder[];
  protectedPatterns: readonly string[];
}

/** Longest command shown in the prompt's one line; longer or multi-line ones are in the detail only. */
const INLINE_COMMAND_CHARS = 150;
/** A diff longer than the largest consent surface is left longer still, so the gate refuses it whole (PROMPT_TOO_LARGE) rather than show a cut. */
const MAX_DIFF_CHARS = 2 * MAX_SHOWN_VALUE_CHARS;

const KIND_NAMES: Record<string, string> = {
  read: 'Read', edit: 'Edit', delete: 'Delete', move: 'Move', search: 'Search', execute: 'Execute',
  think: 'Think', fetch: 'Fetch', switch_mode: 'SwitchMode', other: 'Tool',
};

interface PlacedPath {
  shown: string;
  inside: boolean;
  protected: boolean;
  target?: GrantTarget;
}

export async function describePermission(agent: string, call: AgentToolCall, workspace: PromptWorkspace): Promise<AgentPrompt> {
  const kind = Object.hasOwn(KIND_NAMES, call.kind) ? KIND_NAMES[call.kind] : 'Tool';
  const toolName = `${agent} ${kind}`;
  const diffs = call.content.filter((c) => c.type === 'diff');
  const paths = unique([...diffs.map((d) => d.path), ...call.locations]);
  const placed = await Promise.all(paths.slice(0, 20).map((p) => place(p, workspace)));
  const named = placed.map((p) => p.shown).join(', ');
  const warnings = warningsFor(placed);
  const said = consent`The agent's description: ${call.title.replace(/\s+/g, ' ').trim()}`;
  const base = { toolKey: toolKey({ source: { kind: 'agent', agent }, tool: kind }), toolName, groupName: agent };

  if (call.kind === 'execute') {
    const command = commandOf(call.rawInput);
    const cwd = cwdOf(call.rawInput) ?? call.locations[0];
    const where = cwd !== undefined ? (await place(cwd, workspace)).shown : 'the agent\'s folder';
    const shown = command ?? call.title;
    const inline = !shown.includes('\n') && shown.length <= INLINE_COMMAND_CHARS;
    return {
      ...base,
      message: inline ? `Let ${agent} run ${codeSpan(shown)} in ${where}?` : `Let ${agent} run this command in ${where}?`,
      // The command is one value: its line breaks show as ⏎, so no line of it can pass for the folder.
      detail: join([command !== undefined ? consent`Command: ${command}` : consent`The agent did not say which command; its description follows.`, consent`Folder: ${where}`, said, ...warnings, inputOf(call)]),
      rememberable: false,
    };
  }
  const single = placed.length === 1 ? placed[0] : undefined;
  const rememberable = single !== undefined && single.inside && !single.protected && single.target !== undefined && (call.kind === 'read' || call.kind === 'edit');
  const remember = rememberable && single?.target ? { target: single.target } : {};
  if (diffs.length > 0) {
    const creates = diffs.every((d) => d.oldText === null);
    // One budget for all the diffs: once it is spent the prompt is refused whole anyway, so the
    // diffs after it are not worked out (an agent's 8 diffs of 256 KiB each had each split and aligned).
    let left = MAX_DIFF_CHARS;
    const shownDiffs = diffs.map((d) => {
      const text = left > 0 ? unifiedDiff(splitLines(d.oldText ?? ''), splitLines(d.newText), left) : '';
      left -= Math.max(text.length, 1);
      return consentLines([consent`${d.oldText === null ? 'New file' : 'Changes to'} ${placedName(d.path, placed)}:`, block(text)]);
    });
    return { ...base, message: `Let ${agent} ${creates ? 'create' : 'change'} ${named}?`, detail: join([...shownDiffs, said, ...warnings]), rememberable, ...remember };
  }
  const verb = call.kind === 'read' ? 'read' : call.kind === 'delete' ? 'delete' : call.kind === 'move' ? 'move' : call.kind === 'edit' ? 'change' : undefined;
  if (verb !== undefined && named !== '') {
    return { ...base, message: `Let ${agent} ${verb} ${named}?`, detail: join([said, ...warnings, inputOf(call)]), rememberable, ...remember };
  }
  const url = call.kind === 'fetch' ? urlOf(call.rawInput) : undefined;
  if (url !== undefined) return { ...base, message: `Let ${agent} fetch ${url}?`, detail: join([said, inputOf(call)]), rememberable: false };
  return {
    ...base,
    message: `Let ${agent} use ${call.title.replace(/\s+/g, ' ').trim()}?`,
    detail: join([said, ...(named ? [consent`Files: ${named}`] : []), ...warnings, inputOf(call), ...call.content.filter((c) => c.type === 'text').map((c) => block(c.text))]),
    rememberable: false,
  };
}

async function place(input: string, workspace: PromptWorkspace): Promise<PlacedPath> {
  try {
    const resolved = await resolveWorkspacePath(input, workspace.folders, { protectedPatterns: workspace.protectedPatterns });
    return { shown: resolved.relative, inside: true, protected: resolved.protected, target: grantTargetOf(resolved) };
  } catch {
    return { shown: `${input} (outside the workspace)`, inside: false, protected: false };
  }
}

function placedName(path: string, placed: readonly PlacedPath[]): string {
  return placed.find((p) => p.shown === path || p.target?.absolute === path)?.shown ?? path;
}

function warningsFor(placed: readonly PlacedPath[]): ConsentText[] {
  const out: ConsentText[] = [];
  if (placed.some((p) => !p.inside)) out.push(consent`A path is outside the workspace: Client Tools cannot check what the agent does there.`);
  if (placed.some((p) => p.protected)) out.push(consent`A file can hold secrets or configuration that runs code.`);
  return out;
}

/** The input whole, a line a value; too large to show, the gate refuses the prompt (never cut). */
function inputOf(call: AgentToolCall): ConsentText | undefined {
  if (call.rawInput === undefined) return undefined;
  let text: string;
  try {
    text = JSON.stringify(call.rawInput, null, 2);
  } catch {
    return undefined;
  }
  return consentLines([consent`Input (as the agent sent it):`, block(text)]);
}

/** A block of the agent's text (a diff, JSON, a message): each of its lines one value. */
function block(text: string): ConsentText {
  return consentLines(text.split('\n').map((line) => consent`${line}`));
}

function field(raw: unknown, names: readonly string[]): unknown {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const o = raw as Record<string, unknown>;
  for (const n of names) if (o[n] !== undefined) return o[n];
  return undefined;
}

/** The command line an execute call names (`command`, `cmd`; an argv array joined with spaces). */
export function commandOf(raw: unknown): string | undefined {
  const v = field(raw, ['command', 'cmd']);
  if (typeof v === 'string' && v.trim() !== '') return v;
  if (Array.isArray(v) && v.every((a) => typeof a === 'string')) return v.join(' ');
  return undefined;
}

function cwdOf(raw: unknown): string | undefined {
  const v = field(raw, ['cwd', 'dir_path', 'workdir', 'directory']);
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function urlOf(raw: unknown): string | undefined {
  const v = field(raw, ['url', 'uri']);
  return typeof v === 'string' ? v : undefined;
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values.filter((v) => v !== ''))];
}

function join(parts: readonly (ConsentText | undefined)[]): ConsentText {
  return consentLines(parts, '\n\n');
}
