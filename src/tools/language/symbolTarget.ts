/**
 * Where a Language tool asks: a position given as `path`, `line` and `column` (one-based), or a
 * symbol's name (`symbol`, optionally with `path` and `line` to say which). A name is looked up in
 * the file's outline, or the workspace's symbols, among files inside the workspace only, so a model
 * can ask "references of greet" without reading the file first.
 */
import { CodedError, ErrorCode } from '../../protocol';
import type { LanguageToolsHost, SourcePosition, SymbolInfo } from '../../core/host';
import type { ResolvedPath } from '../../core/paths';
import type { JsonSchema, ToolContext } from '../../core/tool';
import { pathParameter, POSITION } from '../support/parameters';
import { requireFile } from '../support/requireFile';

export interface TargetArgs {
  path?: string;
  line?: number;
  column?: number;
  symbol?: string;
}

export interface Target {
  file: ResolvedPath;
  position: SourcePosition;
  /** `path:line:column` of the position, one-based. */
  at: string;
  /** Other workspace symbols with the same name, when the name was looked up across the workspace. */
  alsoNamed?: string[];
}

/** The properties every positional Language tool takes. */
export const TARGET_PROPERTIES: Record<string, JsonSchema> = {
  path: pathParameter('Workspace-relative path of the file. Needed with line; optional with symbol.'),
  line: { ...POSITION, description: 'One-based line of the symbol.' },
  column: { ...POSITION, description: 'One-based column of the symbol. Default: where symbol is on that line, else the first non-blank character.' },
  symbol: { type: 'string', minLength: 1, maxLength: 200, pattern: '^[^\\n\\r]+$', description: 'The symbol\'s name, instead of (or to find it on) a line.' },
};

/** Most workspace symbols with the same name listed in `alsoNamed`. */
const MAX_ALSO_NAMED = 5;

export async function resolveTarget(args: TargetArgs, ctx: ToolContext<LanguageToolsHost>): Promise<Target> {
  if (args.path === undefined && args.symbol === undefined) throw new CodedError(ErrorCode.InvalidArguments, 'path: give path and line (and column), or symbol');
  if (args.path === undefined) return workspaceSymbolTarget(args.symbol!, ctx);
  const file = await languageFile(args.path, ctx);
  if (args.line === undefined) {
    if (args.symbol === undefined) throw new CodedError(ErrorCode.InvalidArguments, 'line: give the line (and column) of the symbol, or its name as symbol');
    return outlineTarget(file, args.symbol, ctx);
  }
  const lines = (await ctx.host.readDocument(file.absolute)).text.split(/\r?\n/);
  const text = lines[args.line - 1];
  if (text === undefined) throw new CodedError(ErrorCode.InvalidArguments, `line: ${file.relative} has ${lines.length} lines`);
  let character: number;
  if (args.column !== undefined) character = args.column - 1;
  else if (args.symbol !== undefined) {
    character = wordIndex(text, args.symbol);
    if (character < 0) throw new CodedError(ErrorCode.NotFound, `symbol: "${args.symbol}" is not on line ${args.line} of ${file.relative}`);
  } else character = Math.max(0, text.search(/\S/));
  if (character > text.length) throw new CodedError(ErrorCode.InvalidArguments, `column: line ${args.line} of ${file.relative} has ${text.length} characters`);
  return { file, position: { line: args.line - 1, character }, at: `${file.relative}:${args.line}:${character + 1}` };
}

/** A workspace file a language server may be asked about: inside the workspace, a file, not protected. */
export async function languageFile(input: string, ctx: ToolContext<LanguageToolsHost>): Promise<ResolvedPath> {
  const file = await ctx.resolvePath(input);
  await requireFile(ctx.host, file, 'Language tools take files');
  if (file.protected) throw new CodedError(ErrorCode.PathProtected, `${file.relative} holds secrets or code-running configuration; Language tools do not look into it (ReadFile asks the user first)`);
  return file;
}

async function outlineTarget(file: ResolvedPath, symbol: string, ctx: ToolContext<LanguageToolsHost>): Promise<Target> {
  const outline = await ctx.host.documentSymbols(file.absolute);
  const found = outline.find((s) => s.name === symbol) ?? outline.find((s) => s.name.toLowerCase() === symbol.toLowerCase());
  if (!found) throw new CodedError(ErrorCode.NotFound, `symbol: ${file.relative} has no symbol named "${symbol}"${nearNames(outline, symbol)}`);
  const position = await namePosition(found, symbol, file.absolute, ctx);
  return { file, position, at: `${file.relative}:${position.line + 1}:${position.character + 1}` };
}

async function workspaceSymbolTarget(symbol: string, ctx: ToolContext<LanguageToolsHost>): Promise<Target> {
  const all = await ctx.host.workspaceSymbols(symbol);
  const named = all.filter((s) => bareName(s.name) === symbol);
  const candidates = named.length > 0 ? named : all.filter((s) => bareName(s.name).toLowerCase() === symbol.toLowerCase());
  const inside: { symbol: SymbolInfo; file: ResolvedPath }[] = [];
  for (const s of candidates) {
    if (s.location.path === undefined) continue;
    const file = await ctx.resolvePath(s.location.path).catch(() => undefined);
    if (file && !file.protected) inside.push({ symbol: s, file });
  }
  inside.sort((a, b) => compare(a.file.relative, b.file.relative) || a.symbol.location.range.startLine - b.symbol.location.range.startLine);
  const first = inside[0];
  if (!first) throw new CodedError(ErrorCode.NotFound, `symbol: no symbol named "${symbol}" in the workspace${nearNames(all, symbol)}; give path and line instead`);
  const position = await namePosition(first.symbol, symbol, first.file.absolute, ctx);
  const others = inside.slice(1, 1 + MAX_ALSO_NAMED).map((o) => `${o.file.relative}:${o.symbol.location.range.startLine + 1}`);
  return { file: first.file, position, at: `${first.file.relative}:${position.line + 1}:${position.character + 1}`, ...(others.length > 0 ? { alsoNamed: others } : {}) };
}

/** A symbol's name without the `()` some servers add to functions (TypeScript's workspace symbols: `greet()`). */
export function bareName(name: string): string {
  return name.endsWith('()') ? name.slice(0, -2) : name;
}

/** Where the name itself is: servers report a declaration's whole range or just its name. */
async function namePosition(symbol: SymbolInfo, name: string, absPath: string, ctx: ToolContext<LanguageToolsHost>): Promise<SourcePosition> {
  const { startLine, startCharacter } = symbol.location.range;
  const text = (await ctx.host.readDocument(absPath)).text.split(/\r?\n/)[startLine] ?? '';
  const at = wordIndex(text, name, startCharacter);
  return { line: startLine, character: at >= 0 ? at : startCharacter };
}

/** The first occurrence of `word` at or after `from` that is not part of a longer identifier, or -1. */
export function wordIndex(text: string, word: string, from = 0): number {
  const isIdent = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}_$]/u.test(c);
  for (let i = text.indexOf(word, from); i >= 0; i = text.indexOf(word, i + 1)) {
    if (!isIdent(text[i - 1]) && !isIdent(text[i + word.length])) return i;
  }
  return -1;
}

function nearNames(symbols: readonly SymbolInfo[], symbol: string): string {
  const lower = symbol.toLowerCase();
  const near = [...new Set(symbols.map((s) => s.name).filter((n) => n.toLowerCase().includes(lower)))].slice(0, MAX_ALSO_NAMED);
  return near.length > 0 ? ` (similar: ${near.join(', ')})` : '';
}

export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
