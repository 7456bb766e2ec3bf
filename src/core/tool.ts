/**
 * The shape of a client tool: what one file in src/tools/<group>/ exports.
 *
 * A tool says its name, group, description, parameter schema, whether it needs permission and how
 * a denial is answered, then does its work in `run`. If the permission prompt must name a resolved
 * target ("Delete src/old.ts (1.2 KB)?"), `prepare` resolves it first; the dispatcher shows the
 * prompt and then passes the same preparation to `run`, so what the user approved is what is done.
 */
import * as path from 'node:path';
import type { Augmentation, ContentItem, DeclineStrategy } from '../protocol';
import type { Preparation } from './consent/consent';
import type { GrantTarget } from './consent/grants';
import type { IdeHost } from './host';
import type { ResolvedPath } from './paths';

export interface ToolResult {
  content: ContentItem[];
  /** Changes to the tool groups the backend applies before the next model call. */
  augmentation?: Augmentation;
}

/** `H` is the part of the host the tool's group offers (src/core/host.ts); the dispatcher passes the whole host. */
export interface ToolContext<H = IdeHost> {
  readonly host: H;
  /** Aborts when the backend cancels the call, the call times out or the connection's session ends. */
  readonly signal: AbortSignal;
  readonly requestId: string;
  /** The extension's id of this call (`CallRecord.recordId`): what the chat's card of the call is found by. */
  readonly recordId: string;
  /** Largest result the tool may return, in bytes (binary bytes plus JSON/text). */
  readonly maxResultBytes: number;
  /**
   * Resolves a path from the arguments against the workspace and proves containment (see
   * src/core/paths.ts). Results are memoised per call, so `prepare` and `run` see the same target.
   */
  resolvePath(input: string): Promise<ResolvedPath>;
  /** Reports progress to the backend (also restarts its invoke timeout). */
  progress(details: string): void;
  /** True once the user allowed this very call (a prompt was answered, or a remembered choice applied). */
  readonly permissionGranted: boolean;
}

/** What `prepare` returns (src/core/consent/consent.ts, where the consent module reads it). */
export type { Preparation };

/**
 * The grant target for a resolved path: the path itself, and its folder as the wider scope unless
 * that folder is a workspace folder itself (a grant never covers a whole workspace folder).
 */
export function grantTargetOf(target: ResolvedPath): GrantTarget {
  const parent = path.posix.dirname(target.relative);
  const parentIsRoot = parent === '.' || parent === target.folder.name;
  return {
    absolute: target.absolute,
    relative: target.relative,
    ...(parentIsRoot ? {} : { folder: { absolute: path.dirname(target.absolute), relative: parent } }),
  };
}

/** A JSON Schema object for the tool's parameters (compiled with ajv at registration). */
export type JsonSchema = Record<string, unknown>;

export interface ClientTool<A = Record<string, unknown>, P extends Preparation = Preparation, H = IdeHost> {
  /** The model-facing name (a function name). */
  name: string;
  /**
   * The tool's own name where it comes from, when the model-facing name had to differ (an MCP
   * server's tool name, a VS Code tool's name): with the registration's source it is the tool's
   * identity (src/core/consent/toolIdentity.ts), which policies and grants key on.
   */
  sourceName?: string;
  /** Name of the group the tool belongs to; must match the group it is registered with. */
  group: string;
  description: string;
  parameters: JsonSchema;
  /** Whether the user is asked before every call. Only this local definition decides. */
  requiresPermission: boolean;
  /** What a denied prompt answers: `reject` → PERMISSION_DENIED error; `skip` → a "skipped" result. */
  declineStrategy: DeclineStrategy;
  /**
   * The one string argument the user may edit on the chat's permission prompt before allowing
   * (RunInTerminal's `command`, a single-target tool's `path`). The edited call is validated,
   * prepared and asked about again before it runs (src/core/editedCall.ts).
   */
  editableArgument?: string;
  /** Whether the tool stays on in a restricted (untrusted) workspace. Defaults to false. */
  availableWhenUntrusted?: boolean;
  /** Registered but hidden from the model until an augmentation shows it. */
  hidden?: boolean;
  /** Never overlaps with other calls of the same batch (backend scheduling hint). */
  sequential?: boolean;
  /**
   * What a call does to the user's files and editor, for clients that show or filter by it (the MCP
   * server's `readOnlyHint` / `destructiveHint`). Hints only: permission comes from `requiresPermission`.
   * `readOnly`: changes nothing (reads files or editor state). `destructive`: may delete or overwrite
   * the user's work; false for a tool that only adds or changes the view (opens a tab, shows a note).
   */
  effects?: ToolEffects;
  /**
   * JSON Schema of the JSON object a successful call's result holds (its one `json` item), for
   * clients that check structured results (the MCP server's `outputSchema`). Leave it out for a tool
   * whose result is text or binary.
   */
  outputSchema?: JsonSchema;
  /**
   * Resolves and checks the target before any prompt; throws a CodedError to refuse the call
   * without asking the user (missing file, path outside the workspace, …).
   */
  prepare?(args: A, ctx: ToolContext<H>): Promise<P>;
  run(args: A, ctx: ToolContext<H>, prepared: P | undefined): Promise<ToolResult>;
}

/**
 * What a call does, as a classification. `readOnly`: changes nothing. `destructive`: may delete or
 * overwrite the user's work. `idempotent`: calling it again with the same arguments does nothing
 * more. `openWorld`: reaches beyond the editor and its workspace (a terminal, the network). For a
 * bridged MCP tool these are the server's own hints, unchecked: they are shown, never obeyed.
 */
export interface ToolEffects {
  readOnly?: boolean;
  destructive?: boolean;
  idempotent?: boolean;
  openWorld?: boolean;
}

/** The classification in words ("read-only", "may delete or overwrite data", …); empty when nothing is said. */
export function describeEffects(effects: ToolEffects | undefined): string[] {
  if (!effects) return [];
  const words: string[] = [];
  if (effects.readOnly === true) words.push('read-only');
  else if (effects.destructive === true) words.push('may delete or overwrite data');
  else if (effects.destructive === false) words.push('changes data but deletes nothing');
  if (effects.idempotent === true && effects.readOnly !== true) words.push('repeating it changes nothing more');
  if (effects.openWorld === true) words.push('reaches outside the editor');
  if (effects.openWorld === false) words.push('stays within the editor');
  return words;
}

/**
 * Erases a tool's argument types for the registry. Safe because the dispatcher validates the
 * arguments against `parameters` before calling `prepare` or `run`.
 */
export function defineTool<A, P extends Preparation = Preparation>(tool: ClientTool<A, P>): ClientTool {
  return tool as unknown as ClientTool;
}

export function jsonResult(value: unknown): ToolResult {
  return { content: [{ type: 'json', value }] };
}

export function textResult(text: string): ToolResult {
  return { content: [{ type: 'text', text }] };
}
