/**
 * A small `.gitignore` matcher for FindFiles and ListDirectory: the rules of one `.gitignore` file (the workspace
 * folder's root one), applied to paths relative to that folder.
 *
 * Supported: comments, blank lines, `\#` and `\!` escapes, trailing-space trimming, `!` negation,
 * trailing `/` for folders only, patterns anchored by a leading or inner `/`, `*`, `?`, `[…]` and
 * `**`. As in git, a file inside an ignored folder cannot be re-included by a later `!` rule.
 * Not read: nested `.gitignore` files, `.git/info/exclude` and the global excludes file.
 */
import * as path from 'node:path';
import { globBody } from '../../core/globs';
import type { FileReader, ToolHost, WorkspaceFolder } from '../../core/host';

interface Rule {
  regex: RegExp;
  negated: boolean;
  directoryOnly: boolean;
}

export class GitIgnore {
  private readonly rules: Rule[];

  constructor(text: string) {
    this.rules = parse(text);
  }

  get isEmpty(): boolean {
    return this.rules.length === 0;
  }

  /** Whether a file (not a folder) at this relative path is ignored. */
  ignores(relativePath: string): boolean {
    if (this.rules.length === 0) return false;
    const segments = relativePath.split('/').filter((s) => s !== '' && s !== '.');
    // A folder that is ignored hides everything below it, whatever later rules say.
    for (let i = 1; i < segments.length; i++) {
      if (this.decide(segments.slice(0, i).join('/'), true)) return true;
    }
    return this.decide(segments.join('/'), false);
  }

  /** Whether a folder at this relative path is ignored, itself or through a folder above it. */
  ignoresFolder(relativePath: string): boolean {
    if (this.rules.length === 0) return false;
    const segments = relativePath.split('/').filter((s) => s !== '' && s !== '.');
    for (let i = 1; i <= segments.length; i++) {
      if (this.decide(segments.slice(0, i).join('/'), true)) return true;
    }
    return false;
  }

  private decide(path: string, isDirectory: boolean): boolean {
    let ignored = false;
    for (const rule of this.rules) {
      if (rule.directoryOnly && !isDirectory) continue;
      if (rule.regex.test(path)) ignored = !rule.negated;
    }
    return ignored;
  }
}

/** Trailing white space goes unless a backslash quotes its first character; trimEnd, because `\s+$` retried every start of a long run. */
function withoutTrailingSpaces(raw: string): string {
  const kept = raw.trimEnd();
  return kept.length < raw.length && kept.endsWith('\\') ? raw.slice(0, kept.length + 1) : kept;
}

function parse(text: string): Rule[] {
  const rules: Rule[] = [];
  for (const raw of text.split(/\r?\n/)) {
    let line = withoutTrailingSpaces(raw);
    if (line === '' || line.startsWith('#')) continue;
    let negated = false;
    if (line.startsWith('!')) {
      negated = true;
      line = line.slice(1);
    } else if (line.startsWith('\\!') || line.startsWith('\\#')) {
      line = line.slice(1);
    }
    line = line.replace(/\\(\s)/g, '$1');
    let directoryOnly = false;
    if (line.endsWith('/')) {
      directoryOnly = true;
      line = line.replace(/\/+$/, '');
    }
    if (line === '') continue;
    const anchored = line.includes('/');
    if (line.startsWith('/')) line = line.slice(1);
    const body = globBody(line);
    rules.push({ regex: new RegExp(anchored ? `^${body}$` : `^(?:.*/)?${body}$`), negated, directoryOnly });
  }
  return rules;
}

/** A `.gitignore` larger than this is not read (and not applied). */
const MAX_GITIGNORE_BYTES = 1024 * 1024;

/** Each workspace folder's root `.gitignore` with any rules, by the folder's path. */
export async function readGitIgnores(host: ToolHost & FileReader, folders: readonly WorkspaceFolder[]): Promise<Map<string, GitIgnore>> {
  const out = new Map<string, GitIgnore>();
  for (const folder of folders) {
    const file = path.join(folder.path, '.gitignore');
    try {
      const stat = await host.stat(file);
      if (stat?.kind !== 'file' || stat.size > MAX_GITIGNORE_BYTES) continue;
      const rules = new GitIgnore(new TextDecoder('utf-8').decode(await host.readFile(file)));
      if (!rules.isEmpty) out.set(folder.path, rules);
    } catch {
      // An unreadable .gitignore filters nothing.
    }
  }
  return out;
}
