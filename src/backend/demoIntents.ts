/**
 * What the offline demo model understands: plain-language requests turned into intents, one per
 * tool it knows (see demoModel.ts). Matching is case-insensitive and deliberately narrow; anything
 * else is `unknown` and gets the help answer.
 */

export type Intent =
  | { kind: 'open'; path: string }
  | { kind: 'selection' }
  | { kind: 'message'; severity: 'info' | 'warning' | 'error'; text: string }
  | { kind: 'read'; path: string }
  | { kind: 'delete'; path: string }
  | { kind: 'findFiles'; pattern: string }
  | { kind: 'openEditors' }
  | { kind: 'diagnostics'; path?: string }
  | { kind: 'folders' }
  | { kind: 'diff'; path: string; content: string }
  | { kind: 'applyEdit'; path: string; line: number; text: string }
  | { kind: 'save'; path: string }
  | { kind: 'close'; path: string }
  | { kind: 'run'; command: string }
  | { kind: 'unknown' };

/** Requests the help answer lists, one per thing the demo can do. */
export const EXAMPLES = [
  'open README.md',
  'what did I select?',
  'show a warning saying hi',
  'read logo.png',
  'delete notes.txt',
  'find all TypeScript files',
  'which files are open?',
  'any errors?',
  'which folders are open?',
  'propose changing hello.txt to Hello!',
  'replace line 1 of notes.md with # Notes',
  'save notes.md',
  'close hello.txt',
  'run `ls`',
];

/** Globs for "find all <language> files"; a bare extension ("md files") works too. */
const LANGUAGE_GLOBS: Record<string, string> = {
  typescript: '**/*.ts',
  javascript: '**/*.js',
  python: '**/*.py',
  markdown: '**/*.md',
  json: '**/*.json',
  yaml: '**/*.{yml,yaml}',
  html: '**/*.html',
  css: '**/*.css',
  rust: '**/*.rs',
  go: '**/*.go',
  java: '**/*.java',
  'c#': '**/*.cs',
  csharp: '**/*.cs',
  'c++': '**/*.cpp',
  cpp: '**/*.cpp',
  c: '**/*.c',
  ruby: '**/*.rb',
  php: '**/*.php',
  shell: '**/*.sh',
  text: '**/*.txt',
  image: '**/*.{png,jpg,jpeg,gif,svg,webp}',
};

/** A file path as the user wrote it, optionally quoted; the capture ends before closing punctuation. */
const PATH = String.raw`["'\`]?([^\s"'\`]+?)["'\`]?`;
const END = String.raw`[.,;:!?)]*(?:\s|$)`;

export function parseIntent(text: string): Intent {
  const t = text.trim();
  // Requests that carry free text (a command, new content) first: that text may contain any other keyword.
  const run = t.match(/\b(?:run|execute)\s+`([^`]+)`/i) ?? t.match(/\b(?:run|execute)\s+(?:the\s+command\s+)?(.+?)\s+in\s+(?:the|a)\s+terminal\s*[.!]?$/i);
  if (run) return { kind: 'run', command: unquote(run[1].trim()) };

  const diff = t.match(new RegExp(String.raw`\b(?:propose|suggest)\s+(?:changing|to\s+change|an?\s+(?:change|edit)\s+(?:to|of))\s+${PATH}\s+to:?\s+([\s\S]+)$`, 'i'));
  if (diff) return { kind: 'diff', path: diff[1], content: withFinalNewline(unquote(diff[2].trim())) };

  const edit = t.match(new RegExp(String.raw`\b(?:replace|change)\s+line\s+([1-9]\d{0,6})\s+(?:of|in)\s+${PATH}\s+(?:with|to):?\s+([\s\S]+)$`, 'i'));
  if (edit) return { kind: 'applyEdit', line: Number(edit[1]), path: edit[2], text: unquote(edit[3].trim()) };

  const save = t.match(new RegExp(String.raw`^(?:please\s+)?save\s+(?:the\s+file\s+)?${PATH}${END}`, 'i'));
  if (save) return { kind: 'save', path: save[1] };
  const close = t.match(new RegExp(String.raw`^(?:please\s+)?close\s+(?:the\s+)?(?:tabs?\s+(?:of|for|showing)\s+|file\s+)?${PATH}${END}`, 'i'));
  if (close) return { kind: 'close', path: close[1] };

  const del = t.match(new RegExp(String.raw`\b(?:delete|remove)\s+(?:the\s+file\s+)?${PATH}${END}`, 'i'));
  if (del) return { kind: 'delete', path: del[1] };
  const read = t.match(new RegExp(String.raw`\bread\s+(?:the\s+file\s+)?${PATH}${END}`, 'i'));
  if (read) return { kind: 'read', path: read[1] };

  // Before "open <file>": "list open editors" is not a request to open a file called "editors".
  if (/\bopen\s+(?:editors|tabs)(?![\w./-])|\b(?:which|what)\s+(?:files|tabs|editors)\s+(?:are|do\s+I\s+have)\s+open\b|\b(?:list|show)\s+(?:the\s+|my\s+)?open\s+files(?![\w./-])/i.test(t)) {
    return { kind: 'openEditors' };
  }
  if (/\bworkspace\s+folders?\b|\b(?:which|what)\s+folders?\b|\bfolders?\s+(?:are\s+)?open\b/i.test(t)) return { kind: 'folders' };

  const open = t.match(new RegExp(String.raw`\bopen\s+(?:the\s+file\s+)?${PATH}${END}`, 'i'));
  if (open) return { kind: 'open', path: open[1] };
  const show = t.match(/\b(?:show|display)\b.*?\b(warning|error|info(?:rmation)?|message|notification)\b.*?\bsaying\s+(.+)$/i);
  if (show) {
    const word = show[1].toLowerCase();
    const severity = word === 'warning' ? 'warning' : word === 'error' ? 'error' : 'info';
    const said = show[2].trim().replace(/^["'`“]+|["'`”.!]+$/g, '');
    return { kind: 'message', severity, text: said || show[2].trim() };
  }

  const pattern = findPattern(t);
  if (pattern) return { kind: 'findFiles', pattern };

  if (/\b(?:diagnostics|problems|errors|warnings)\b/i.test(t)) {
    const where = t.match(/\b(?:for|in|of)\s+["'`]?([^\s"'`]*[./][^\s"'`]*?)["'`]?[,;:!?)]*(?:\s|$)/i);
    const path = where?.[1].replace(/\.+$/, '');
    return path ? { kind: 'diagnostics', path } : { kind: 'diagnostics' };
  }
  if (/\bselect(ed|ion)?\b/i.test(t)) return { kind: 'selection' };
  return { kind: 'unknown' };
}

/** The glob of a "find …" request: "find files matching *.md", "find all TypeScript files", "find **\/*.json". */
function findPattern(text: string): string | undefined {
  const glob = text.match(/\b(?:find|list|search\s+for)\s+(?:all\s+)?(?:the\s+)?files?\s+(?:matching|named|like|called)\s+["'`]?([^\s"'`]+)/i);
  if (glob) return anywhere(glob[1]);
  const kind = text.match(/\b(?:find|list|show)\s+(?:me\s+)?(?:all\s+)?(?:the\s+|my\s+)?\*?\.?([\w#+-]+)\s+files\b/i);
  if (kind) {
    const word = kind[1].toLowerCase();
    const known = LANGUAGE_GLOBS[word] ?? Object.values(LANGUAGE_GLOBS).find((g) => g === `**/*.${word}` || g.includes(`,${word},`) || g.includes(`{${word},`) || g.endsWith(`,${word}}`));
    if (known) return known;
  }
  const bare = text.match(/\bfind\s+(?:all\s+)?(?:files\s+)?["'`]?([^\s"'`]*[*?][^\s"'`]*)/i);
  return bare ? anywhere(bare[1]) : undefined;
}

/** "*.md" means markdown files anywhere, as a user says it; a glob with a folder in it is taken as written. */
function anywhere(glob: string): string {
  const g = glob.replace(/[.,;:!?)]+$/, '');
  return g.includes('/') || g.startsWith('**') ? g : `**/${g}`;
}

function unquote(text: string): string {
  const m = text.match(/^(["'`“])([\s\S]*)(["'`”])$/);
  if (!m) return text;
  const pairs: Record<string, string> = { '"': '"', "'": "'", '`': '`', '“': '”' };
  return pairs[m[1]] === m[3] ? m[2] : text;
}

/** Files end with a newline; the user writes their content without one. */
function withFinalNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}
