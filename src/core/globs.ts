/**
 * Glob helpers shared by FindFiles (its `.gitignore` filter) and the hosts (VS Code's exclude
 * settings, the unit-test host's file walk). Paths are relative, with `/` separators.
 */

/**
 * A glob as a regular expression over a whole relative path: `*` and `?` stay within one segment,
 * `**` spans segments (`**` + `/` also matches no folder at all), `[abc]` and `[!abc]` are character
 * classes, `{a,b}` alternatives. Everything else is literal.
 */
export function globToRegExp(glob: string): RegExp {
  return new RegExp(`^${globBody(glob)}$`);
}

/** The regular-expression source for a glob, without anchors. */
export function globBody(glob: string): string {
  let out = '';
  let i = 0;
  let braceDepth = 0;
  while (i < glob.length) {
    const c = glob[i];
    if (c === '*') {
      if (glob[i + 1] === '*') {
        const atSegmentStart = i === 0 || glob[i - 1] === '/';
        let j = i + 2;
        while (glob[j] === '*') j++;
        if (atSegmentStart && glob[j] === '/') {
          out += '(?:.*/)?';
          i = j + 1;
          continue;
        }
        if (atSegmentStart && j === glob.length) {
          out += '.*';
          i = j;
          continue;
        }
        out += '[^/]*';
        i = j;
        continue;
      }
      out += '[^/]*';
    } else if (c === '?') {
      out += '[^/]';
    } else if (c === '[') {
      const close = glob.indexOf(']', i + 2);
      if (close < 0) {
        out += '\\[';
      } else {
        let body = glob.slice(i + 1, close);
        const negated = body.startsWith('!') || body.startsWith('^');
        if (negated) body = body.slice(1);
        out += `[${negated ? '^' : ''}${body.replace(/\\/g, '\\\\').replace(/\//g, '')}]`;
        i = close;
      }
    } else if (c === '{') {
      braceDepth++;
      out += '(?:';
    } else if (c === '}' && braceDepth > 0) {
      braceDepth--;
      out += ')';
    } else if (c === ',' && braceDepth > 0) {
      out += '|';
    } else if (c === '\\' && i + 1 < glob.length) {
      i++;
      out += escapeRegExp(glob[i]);
    } else {
      out += escapeRegExp(c);
    }
    i++;
  }
  while (braceDepth-- > 0) out += ')';
  return out;
}

/**
 * Expands `{a,b}` alternatives (nested too) into plain globs: `**\/*.{js,map}` → `**\/*.js`,
 * `**\/*.map`. VS Code's glob engine does not nest braces, so settings are flattened before they
 * are joined into one `{…,…}` exclude pattern. Stops at `limit` results.
 */
export function expandBraces(glob: string, limit = 256): string[] {
  const open = glob.indexOf('{');
  if (open < 0) return [glob];
  let depth = 0;
  let close = -1;
  const commas: number[] = [];
  for (let i = open; i < glob.length; i++) {
    const c = glob[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '{') depth++;
    else if (c === '}' && --depth === 0) {
      close = i;
      break;
    } else if (c === ',' && depth === 1) commas.push(i);
  }
  if (close < 0) return [glob];
  const head = glob.slice(0, open);
  const tail = glob.slice(close + 1);
  const bounds = [open, ...commas, close];
  const out: string[] = [];
  for (let k = 0; k < bounds.length - 1 && out.length < limit; k++) {
    const alternative = glob.slice(bounds[k] + 1, bounds[k + 1]);
    for (const expanded of expandBraces(head + alternative + tail, limit - out.length)) out.push(expanded);
  }
  return out;
}

function escapeRegExp(c: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(c) ? `\\${c}` : c;
}
