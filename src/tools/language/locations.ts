/**
 * What a language server named, as the Language tools return it: `path:line:column` with the
 * line's text, ordered (workspace files first, then by path and position) and capped.
 *
 * A location is shown with its text only when its file is inside the workspace and not protected,
 * proven the way ReadFile proves it (real path contained, the file's identity checked before and
 * after the read). A library's file outside the workspace (node_modules elsewhere, the standard
 * library's declarations) comes back as a read-only location without its text, unless the call
 * asked for that text and the user allowed it in a prompt naming the files; a protected file's
 * location never has its text (ReadFile asks the user for those).
 */
import { CodedError, ErrorCode } from '../../protocol';
import { consent, consentLines } from '../../core/consent/consentText';
import { bindTarget, verifyTarget } from '../../core/fileIdentity';
import type { LanguageToolsHost, SourceLocation } from '../../core/host';
import { isProtectedPath, type ResolvedPath } from '../../core/paths';
import type { JsonSchema, Preparation, ToolContext } from '../../core/tool';
import { clipAround } from '../support/format';
import { compare } from './symbolTarget';

export const DEFAULT_MAX_LOCATIONS = 50;
export const MAX_LOCATIONS = 500;
/** Files outside the workspace whose lines a prompt may offer to show. */
const MAX_OUTSIDE_FILES = 20;

export type Placement = 'workspace' | 'protected' | 'outside';

/** A location with where its file lies. */
export interface Placed {
  location: SourceLocation;
  placement: Placement;
  /** What the model sees as the file: the workspace-relative path, else the absolute path or the URI. */
  display: string;
  /** The resolved file, for workspace locations. */
  file?: ResolvedPath;
}

export interface LocationResult {
  location: string;
  text?: string;
  outsideWorkspace?: true;
  protected?: true;
}

export const LOCATION_OPTIONS: Record<string, JsonSchema> = {
  maxResults: { type: 'integer', minimum: 1, maximum: MAX_LOCATIONS, description: `Most locations to return. Default ${DEFAULT_MAX_LOCATIONS}.` },
  includeOutsideText: {
    type: 'boolean',
    description: 'Also show the lines of locations outside the workspace (libraries, the standard library). The user is asked first. Default false.',
  },
};

/** Where each location's file lies, in order, duplicates dropped. */
export async function placeLocations(locations: readonly SourceLocation[], ctx: ToolContext<LanguageToolsHost>): Promise<Placed[]> {
  const byPath = new Map<string, Promise<Pick<Placed, 'placement' | 'display' | 'file'>>>();
  const place = (p: string) => {
    let found = byPath.get(p);
    if (!found) {
      found = ctx.resolvePath(p).then(
        (file) => ({ placement: file.protected ? ('protected' as const) : ('workspace' as const), display: file.relative, file }),
        () => ({ placement: 'outside' as const, display: p }),
      );
      byPath.set(p, found);
    }
    return found;
  };
  const seen = new Set<string>();
  const out: Placed[] = [];
  for (const location of locations) {
    const key = `${location.uri}#${location.range.startLine}:${location.range.startCharacter}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const where = location.path !== undefined ? await place(location.path) : { placement: 'outside' as const, display: location.uri };
    out.push({ location, ...where });
  }
  const rank: Record<Placement, number> = { workspace: 0, protected: 1, outside: 2 };
  return out.sort((a, b) => rank[a.placement] - rank[b.placement] || compare(a.display, b.display)
    || a.location.range.startLine - b.location.range.startLine || a.location.range.startCharacter - b.location.range.startCharacter);
}

export function positionText(display: string, location: SourceLocation): string {
  return `${display}:${location.range.startLine + 1}:${location.range.startCharacter + 1}`;
}

/** The outside files whose lines would be shown, for the prompt; undefined when none (or none readable as files). */
export function outsideTextPreparation(placed: readonly Placed[], what: string): Preparation | undefined {
  const files = [...new Set(placed.filter((p) => p.placement === 'outside' && readableOutside(p)).map((p) => p.location.path!))];
  if (files.length === 0) return undefined;
  const listed = files.slice(0, MAX_OUTSIDE_FILES);
  const more = files.length - listed.length;
  return {
    prompt: `Let the agent read the lines of ${what} in ${files.length} file${files.length === 1 ? '' : 's'} outside the workspace?`,
    // Each file name is one value: a name cannot add a line of its own.
    detail: consentLines([consent`Only the named lines are read, from:`, ...listed.map((f) => consent`${f}`), more > 0 ? consent`… and ${more} more, which stay without text` : undefined]),
    forcePrompt: true,
  };
}

/** The results: every workspace location with its line, outside ones with theirs only when `showOutside`. */
export async function locationResults(placed: readonly Placed[], ctx: ToolContext<LanguageToolsHost>, showOutside: boolean): Promise<LocationResult[]> {
  const lines = new Map<string, string[] | undefined>();
  const outsideFiles = new Set<string>();
  const out: LocationResult[] = [];
  for (const p of placed) {
    const location = positionText(p.display, p.location);
    if (p.placement === 'protected') {
      out.push({ location, protected: true });
      continue;
    }
    let text: string[] | undefined;
    if (p.placement === 'workspace') {
      text = await cached(lines, p.file!.absolute, () => workspaceLines(p.file!, ctx));
    } else if (showOutside && readableOutside(p)) {
      outsideFiles.add(p.location.path!);
      if (outsideFiles.size <= MAX_OUTSIDE_FILES) text = await cached(lines, p.location.path!, () => outsideLines(p.location.path!, ctx));
    }
    const line = text?.[p.location.range.startLine];
    out.push({
      location,
      ...(line !== undefined ? { text: clipAround(line.trim(), p.location.range.startCharacter) } : {}),
      ...(p.placement === 'outside' ? { outsideWorkspace: true as const } : {}),
    });
  }
  return out;
}

/** A file outside the workspace whose text may be offered: on disk, and not one whose name marks secrets. */
function readableOutside(p: Placed): boolean {
  return p.location.path !== undefined && !isProtectedPath(p.location.path);
}

async function cached(cache: Map<string, string[] | undefined>, key: string, read: () => Promise<string[] | undefined>): Promise<string[] | undefined> {
  if (!cache.has(key)) cache.set(key, await read());
  return cache.get(key);
}

/** The file's lines as ReadFile would read them: only while it is still the file that was resolved. */
async function workspaceLines(file: ResolvedPath, ctx: ToolContext<LanguageToolsHost>): Promise<string[] | undefined> {
  try {
    const bound = await bindTarget(file);
    await verifyTarget(bound, { sameContent: false });
    const text = (await ctx.host.readDocument(file.absolute)).text;
    await verifyTarget(bound, { sameContent: false });
    return text.split(/\r?\n/);
  } catch (e) {
    if (e instanceof CodedError && e.code === ErrorCode.Cancelled) throw e;
    return undefined;
  }
}

async function outsideLines(absPath: string, ctx: ToolContext<LanguageToolsHost>): Promise<string[] | undefined> {
  try {
    return (await ctx.host.readDocument(absPath)).text.split(/\r?\n/);
  } catch {
    return undefined;
  }
}
