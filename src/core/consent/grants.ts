/**
 * Remembered permissions ("grants"), bound to what the prompt's button said.
 *
 * A grant is (tool, target), (tool, folder) or, for a tool whose calls name no target, (tool), where
 * the tool is its identity (`toolKey`, src/core/consent/toolIdentity.ts), never its model-facing name alone:
 * a grant for one MCP server's tool never answers for another server's tool of the same name. It is
 * matched against the target the tool's own `prepare` resolved (the real path the prompt named),
 * never against anything in the request. A folder grant covers files below that folder; it is only
 * offered for a folder inside a workspace folder, never for a workspace folder itself.
 */
import * as path from 'node:path';

export type RememberScope = 'session' | 'workspace';

/** What a prompt names, as resolved by the tool's `prepare`; see `grantTargetOf` in tool.ts. */
export interface GrantTarget {
  /** The real absolute path the prompt names: the grant's key. */
  absolute: string;
  /** How the prompt names it (workspace-relative, `/` separators). */
  relative: string;
  /** The target's folder, offered as a wider scope; absent when that folder is a workspace folder itself. */
  folder?: { absolute: string; relative: string };
}

export type GrantKind = 'target' | 'folder' | 'tool';

export interface Grant {
  /** The tool's identity key: what the grant covers. */
  toolKey: string;
  /** The tool's name as the prompt showed it: for the label only. */
  toolName: string;
  kind: GrantKind;
  /** Real absolute path of the target or folder; empty for a `tool` grant. */
  path: string;
  /** How the prompt named the target or folder; empty for a `tool` grant. */
  shown: string;
  scope: RememberScope;
  /** The button's text, which is also how the chat card, the log and Reset Permissions name the grant. */
  label: string;
}

/** Identifies a grant regardless of its scope or label. */
export function grantKey(g: Pick<Grant, 'toolKey' | 'kind' | 'path'>): string {
  return `${g.toolKey}\u0000${g.kind}\u0000${g.path}`;
}

const WHERE: Record<RememberScope, string> = {
  session: 'until this window closes',
  workspace: 'in this workspace from now on',
};

export function grantLabel(toolName: string, kind: GrantKind, shown: string, scope: RememberScope): string {
  switch (kind) {
    case 'target':
      return `Allow ${toolName} of ${shown} ${WHERE[scope]}`;
    case 'folder':
      return `Allow ${toolName} in ${shown}/ ${WHERE[scope]}`;
    case 'tool':
      return `Allow every ${toolName} call ${WHERE[scope]}`;
  }
}

export function makeGrant(tool: { key: string; name: string }, kind: GrantKind, target: GrantTarget | undefined, scope: RememberScope): Grant {
  const where = kind === 'folder' ? target?.folder : kind === 'target' ? target : undefined;
  const p = where?.absolute ?? '';
  const shown = where?.relative ?? '';
  return { toolKey: tool.key, toolName: tool.name, kind, path: p, shown, scope, label: grantLabel(tool.name, kind, shown, scope) };
}

/** Whether `grant` covers a call of the tool with identity key `toolKey` on `target` (undefined: the call names no target). */
export function grantCovers(grant: Grant, toolKey: string, target: GrantTarget | undefined): boolean {
  if (grant.toolKey !== toolKey) return false;
  if (!target) return grant.kind === 'tool';
  if (grant.kind === 'target') return grant.path === target.absolute;
  if (grant.kind === 'folder') {
    const rel = path.relative(grant.path, target.absolute);
    return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
  }
  return false;
}

/**
 * A stored grant read back from durable storage: parse, don't trust (older versions stored bare tool
 * names). A grant stored before identities has no `toolKey` and is kept under its tool name, which
 * is the key of a built-in tool of that name and of nothing else: such a grant of a bridged or MCP
 * tool matches no tool any more (it could have meant either of two tools), so it never widens.
 */
export function parseStoredGrant(value: unknown): Grant | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  const kinds: readonly unknown[] = ['target', 'folder', 'tool'];
  if (typeof v.toolName !== 'string' || !kinds.includes(v.kind) || typeof v.path !== 'string' || typeof v.shown !== 'string') return undefined;
  const kind = v.kind as GrantKind;
  if ((kind === 'tool') !== (v.path === '')) return undefined;
  if (kind !== 'tool' && !path.isAbsolute(v.path)) return undefined;
  if (v.toolKey !== undefined && typeof v.toolKey !== 'string') return undefined;
  const toolKey = typeof v.toolKey === 'string' ? v.toolKey : v.toolName;
  return { toolKey, toolName: v.toolName, kind, path: v.path, shown: v.shown, scope: 'workspace', label: grantLabel(v.toolName, kind, v.shown, 'workspace') };
}
