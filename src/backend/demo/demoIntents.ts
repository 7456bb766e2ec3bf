/**
 * What the offline demo model understands: plain-language requests turned into intents, one per
 * tool it knows (see demoModel.ts). Matching is case-insensitive and deliberately narrow; anything
 * else is `unknown` and gets the help answer.
 */

export type Intent =
  | { kind: 'open'; path: string }
  | { kind: 'selection' }
  | { kind: 'message'; severity: 'info' | 'warning' | 'error'; text: string; buttons?: string[] }
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
  | { kind: 'references'; symbol: string }
  | { kind: 'searchText'; query: string }
  | { kind: 'gitChanges' }
  | { kind: 'tasks' }
  | { kind: 'unknown' };

/** Requests the help answer lists, one per thing the demo can do. */
export const EXAMPLES = [
  'open notes.md',
  'what did I select?',
  'show a warning saying hi',
  'ask me whether to continue',
  'read logo.png',
  'delete hello.txt',
  'find all TypeScript files',
  'which files are open?',
  'any errors?',
  'which folders are open?',
  'propose changing hello.txt to Hello!',
  'replace line 1 of notes.md with # Notes',
  'save notes.md',
  'close hello.txt',
  // Not "run `ls`": the chat draws the backticks as code, and "run ls" as a user reads it is not understood.
  'run ls in the terminal',
  'find usages of greet',
  'search for TODO',
  'what changed?',
  'what tasks are there?',
];

/**
 * The help answer's examples once `deleted` (the conversation's deleted files) are gone: none that
 * needs one of them, so the help never suggests deleting, opening or closing a file already deleted.
 * A proposal for one stays: it creates the file again.
 */
export function examplesFor(deleted: ReadonlySet<string>): string[] {
  return EXAMPLES.filter((example) => {
    const intent = parseIntent(example);
    return intent.kind === 'diff' || !('path' in intent) || intent.path === undefined || !deleted.has(normalPath(intent.path));
  });
}

/** A workspace path as examples and tool arguments both write it: no leading `./`, forward slashes. */
export function normalPath(p: string): string {
  return p.replace(/\\/g, '/').replace(/^(\.\/)+/, '');
}

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

/**
 * The longest request the parser reads. Chat messages may hold 100,000 characters; the demo's asks
 * are a line or a short file, and a longer message is not looked at (the model says so) rather than
 * half-understood. Every pattern below is linear in its input anyway; the cap bounds the constant.
 */
export const MAX_REQUEST_CHARS = 10_000;

/*
 * Why the patterns look the way they do: they run on the backend's only thread, on text anyone who
 * can paste into the chat controls. None of them may backtrack over a run of input more than a
 * bounded number of times, so:
 * - no lazy `.*?` or `.+?` followed by anything that can rescan the rest (a hand-written search
 *   finds the keywords in order instead);
 * - no two adjacent repetitions over overlapping characters (a path, then trailing punctuation):
 *   the path is taken whole and its punctuation stripped in code;
 * - no unanchored `[…]+$` (it rescans a long run from every position in it): strip in code;
 * - a repetition before a required word (`\s+in`) starts only where its run starts (`(?<!\s)`).
 */

/** A file path as the user wrote it, optionally quoted: one word, punctuation stripped after the match (see `pathOf`). */
const PATH = String.raw`["'\`]?([^\s"'\`]+)(?:["'\`][.,;:!?)]*)?`;
const END = String.raw`(?=\s|$)`;
/** What may follow a path and is not part of it: "open notes.md." or "(delete a.txt)". */
const TRAILING_PUNCTUATION = '.,;:!?)';

const RUN_QUOTED = /\b(?:run|execute)\s+`/gi;
const RUN_IN_TERMINAL = /(?<!\s)\s+in\s+(?:the|a)\s+terminal\s*[.!]?$/i;
const RUN_WORD = /\b(?:run|execute)\s+(?:the\s+command\s+)?/i;
const DIFF = new RegExp(String.raw`\b(?:propose|suggest)\s+(?:changing|to\s+change|an?\s+(?:change|edit)\s+(?:to|of))\s+${PATH}\s+to:?\s+`, 'i');
const EDIT = new RegExp(String.raw`\b(?:replace|change)\s+line\s+([1-9]\d{0,6})\s+(?:of|in)\s+${PATH}\s+(?:with|to):?\s+`, 'i');
const SAVE = new RegExp(String.raw`^(?:please\s+)?save\s+(?:the\s+file\s+)?${PATH}${END}`, 'i');
const CLOSE = new RegExp(String.raw`^(?:please\s+)?close\s+(?:the\s+)?(?:tabs?\s+(?:of|for|showing)\s+|file\s+)?${PATH}${END}`, 'i');
const DELETE = new RegExp(String.raw`\b(?:delete|remove)\s+(?:the\s+file\s+)?${PATH}${END}`, 'i');
const READ = new RegExp(String.raw`\bread\s+(?:the\s+file\s+)?${PATH}${END}`, 'i');
const OPEN = new RegExp(String.raw`\bopen\s+(?:the\s+file\s+)?${PATH}${END}`, 'i');
const OPEN_EDITORS = /\bopen\s+(?:editors|tabs)(?![\w./-])|\b(?:which|what)\s+(?:files|tabs|editors)\s+(?:are|do\s+I\s+have)\s+open\b|\b(?:list|show)\s+(?:the\s+|my\s+)?open\s+files(?![\w./-])/i;
const FOLDERS = /\bworkspace\s+folders?\b|\b(?:which|what)\s+folders?\b|\bfolders?\s+(?:are\s+)?open\b/i;
const SHOW = /\b(?:show|display)\b/i;
const SEVERITY = /\b(warning|error|info(?:rmation)?|message|notification)\b/gi;
const SAYING = /\bsaying\s+/gi;
/** "ask me whether to go on": a question the user answers with a button. */
const ASK = /^(?:please\s+)?ask\s+me\s+(?:whether|if)\s+/i;
const DIAGNOSTICS = /\b(?:diagnostics|problems|errors|warnings)\b/i;
const DIAGNOSTICS_WHERE = new RegExp(String.raw`\b(?:for|in|of)\s+${PATH}${END}`, 'gi');
const SELECTION = /\bselect(ed|ion)?\b/i;
const FIND_MATCHING = /\b(?:find|list|search\s+for)\s+(?:all\s+)?(?:the\s+)?files?\s+(?:matching|named|like|called)\s+["'`]?([^\s"'`]+)/i;
const FIND_KIND = /\b(?:find|list|show)\s+(?:me\s+)?(?:all\s+)?(?:the\s+|my\s+)?\*?\.?([\w#+-]+)\s+files\b/i;
const FIND_BARE = /\bfind\s+(?:all\s+)?(?:files\s+)?["'`]?([^\s"'`]*[*?][^\s"'`]*)/i;
/** "find usages of greet", "where is greet used?": one identifier after fixed words. */
const REFERENCES = /\b(?:find|show|list)\s+(?:me\s+)?(?:all\s+)?(?:the\s+)?(?:usages|uses|references|callers)\s+(?:of|to)\s+["'`]?([A-Za-z_$][\w$]*)/i;
const WHERE_USED = /\bwhere\s+is\s+["'`]?([A-Za-z_$][\w$]*)["'`]?\s+(?:used|called|referenced)\b/i;
/** "search for TODO", "search the code for x", "grep TODO": the rest of the line is the text (taken in code). */
const SEARCH_FOR = /\b(?:search|grep)\s+(?:(?:the|my)\s+(?:code|workspace|files|project)\s+)?for\s+|\bgrep\s+/i;
const GIT_CHANGES = /\bwhat\s+(?:has\s+|have\s+I\s+|I\s+)?changed\b|\bwhat\s+did\s+I\s+change\b|\bgit\s+status\b|\b(?:show|list)\s+(?:me\s+)?(?:my\s+|the\s+)?(?:uncommitted\s+|git\s+)?changes\b/i;
const TASKS = /\b(?:which|what)\s+tasks\b|\b(?:list|show)\s+(?:me\s+)?(?:the\s+|my\s+|all\s+)?tasks\b/i;
/** What `.` does not match: a pattern that ends in `(.+)$` needs its whole match on the last line. */
const LINE_BREAK = /[\n\r\u2028\u2029]/;

export function parseIntent(text: string): Intent {
  const t = text.trim();
  return t.length > MAX_REQUEST_CHARS ? { kind: 'unknown' } : parseRequest(t);
}

/** The parser without the length cap; exported so tests can show each pattern is linear on long input. */
export function parseRequest(t: string): Intent {
  // Requests that carry free text (a command, new content) first: that text may contain any other keyword.
  const command = runCommand(t);
  if (command !== undefined) return { kind: 'run', command: unquote(command.trim()) };

  const diff = DIFF.exec(t);
  if (diff) return { kind: 'diff', path: pathOf(diff[1]), content: withFinalNewline(unquote(rest(t, diff).trim())) };

  const edit = EDIT.exec(t);
  if (edit) return { kind: 'applyEdit', line: Number(edit[1]), path: pathOf(edit[2]), text: unquote(rest(t, edit).trim()) };

  const save = SAVE.exec(t);
  if (save) return { kind: 'save', path: pathOf(save[1]) };
  const close = CLOSE.exec(t);
  if (close) return { kind: 'close', path: pathOf(close[1]) };

  const del = DELETE.exec(t);
  if (del) return { kind: 'delete', path: pathOf(del[1]) };
  const read = READ.exec(t);
  if (read) return { kind: 'read', path: pathOf(read[1]) };

  // Before "open <file>": "list open editors" is not a request to open a file called "editors".
  if (OPEN_EDITORS.test(t)) return { kind: 'openEditors' };
  if (FOLDERS.test(t)) return { kind: 'folders' };

  const open = OPEN.exec(t);
  if (open) return { kind: 'open', path: pathOf(open[1]) };
  const message = showMessage(t);
  if (message) return message;
  const question = askQuestion(t);
  if (question) return question;

  const pattern = findPattern(t);
  if (pattern) return { kind: 'findFiles', pattern };

  const used = REFERENCES.exec(t) ?? WHERE_USED.exec(t);
  if (used) return { kind: 'references', symbol: used[1] };
  const query = searchQuery(t);
  if (query) return { kind: 'searchText', query };
  if (GIT_CHANGES.test(t)) return { kind: 'gitChanges' };
  if (TASKS.test(t)) return { kind: 'tasks' };

  if (DIAGNOSTICS.test(t)) {
    const path = diagnosticsPath(t);
    return path ? { kind: 'diagnostics', path } : { kind: 'diagnostics' };
  }
  if (SELECTION.test(t)) return { kind: 'selection' };
  return { kind: 'unknown' };
}

/** "run `ls`" (the first quoted command), or "run ls in the terminal" (the words between, on one line). */
function runCommand(t: string): string | undefined {
  RUN_QUOTED.lastIndex = 0;
  for (let m = RUN_QUOTED.exec(t); m; m = RUN_QUOTED.exec(t)) {
    const from = m.index + m[0].length;
    const to = t.indexOf('`', from);
    // No closing backtick after this "run `" means none after a later one either.
    if (to < 0) break;
    if (to > from) return t.slice(from, to);
  }
  return runInTerminal(t);
}

function runInTerminal(t: string): string | undefined {
  const tail = RUN_IN_TERMINAL.exec(t);
  if (!tail) return undefined;
  const line = lastLine(t.slice(0, tail.index));
  const verb = RUN_WORD.exec(line);
  if (!verb) return undefined;
  const command = line.slice(verb.index + verb[0].length);
  return command === '' ? undefined : command;
}

/** "show a warning saying hi": the first "show" or "display", then a kind of message, then "saying" and the text, all on the last line. */
function showMessage(t: string): Intent | undefined {
  const line = lastLine(t);
  const show = SHOW.exec(line);
  if (!show) return undefined;
  SEVERITY.lastIndex = show.index + show[0].length;
  const severityWord = SEVERITY.exec(line);
  if (!severityWord) return undefined;
  SAYING.lastIndex = severityWord.index + severityWord[0].length;
  const saying = SAYING.exec(line);
  if (!saying) return undefined;
  const words = line.slice(saying.index + saying[0].length).trim();
  if (words === '') return undefined;
  const word = severityWord[1].toLowerCase();
  const severity = word === 'warning' ? 'warning' : word === 'error' ? 'error' : 'info';
  const said = stripEnd(stripStart(words, '"\'`“'), '"\'`”.!');
  return { kind: 'message', severity, text: said || words };
}

/** "ask me whether to continue": ShowMessage with Yes / No, which waits for the user's answer. */
function askQuestion(t: string): Intent | undefined {
  const line = lastLine(t);
  const ask = ASK.exec(line);
  if (!ask) return undefined;
  const said = stripEnd(line.slice(ask[0].length).trim(), '?.!');
  // "whether to continue" asks "Should I continue?".
  const words = /^to\s/i.test(said) ? said.slice(3).trim() : said;
  if (words === '') return undefined;
  return { kind: 'message', severity: 'info', text: `Should I ${words}?`, buttons: ['Yes', 'No'] };
}

/** The text of "search for TODO" or "grep TODO": the rest of the last line, unquoted, without the question's punctuation. */
function searchQuery(t: string): string | undefined {
  const line = lastLine(t);
  const keyword = SEARCH_FOR.exec(line);
  if (!keyword) return undefined;
  const words = stripEnd(line.slice(keyword.index + keyword[0].length).trim(), '?!.');
  const text = unquote(words).trim();
  return text === '' ? undefined : text;
}

/** The file of "errors in src/a.ts": the first word after for/in/of that looks like a path. */
function diagnosticsPath(t: string): string | undefined {
  DIAGNOSTICS_WHERE.lastIndex = 0;
  for (let m = DIAGNOSTICS_WHERE.exec(t); m; m = DIAGNOSTICS_WHERE.exec(t)) {
    const word = stripEnd(m[1], ',;:!?)');
    if (/[./]/.test(word)) return stripEnd(word, '.') || undefined;
  }
  return undefined;
}

/** The glob of a "find …" request: "find files matching *.md", "find all TypeScript files", "find **\/*.json". */
function findPattern(text: string): string | undefined {
  const glob = FIND_MATCHING.exec(text);
  if (glob) return anywhere(glob[1]);
  const kind = FIND_KIND.exec(text);
  if (kind) {
    const word = kind[1].toLowerCase();
    const known = (Object.hasOwn(LANGUAGE_GLOBS, word) ? LANGUAGE_GLOBS[word] : undefined) ?? Object.values(LANGUAGE_GLOBS).find((g) => g === `**/*.${word}` || g.includes(`,${word},`) || g.includes(`{${word},`) || g.endsWith(`,${word}}`));
    if (known) return known;
  }
  const bare = FIND_BARE.exec(text);
  return bare ? anywhere(bare[1]) : undefined;
}

/** "*.md" means markdown files anywhere, as a user says it; a glob with a folder in it is taken as written. */
function anywhere(glob: string): string {
  const g = stripEnd(glob, TRAILING_PUNCTUATION);
  return g.includes('/') || g.startsWith('**') ? g : `**/${g}`;
}

/** A path word without the sentence's punctuation after it, keeping at least its first character ("open ." opens "."). */
function pathOf(word: string): string {
  return word[0] + stripEnd(word.slice(1), TRAILING_PUNCTUATION);
}

/** The text after a match, to the end: new content or a line's replacement. */
function rest(text: string, match: RegExpExecArray): string {
  return text.slice(match.index + match[0].length);
}

function lastLine(text: string): string {
  let start = text.length;
  while (start > 0 && !LINE_BREAK.test(text[start - 1])) start--;
  return text.slice(start);
}

function stripStart(text: string, chars: string): string {
  let i = 0;
  while (i < text.length && chars.includes(text[i])) i++;
  return text.slice(i);
}

function stripEnd(text: string, chars: string): string {
  let end = text.length;
  while (end > 0 && chars.includes(text[end - 1])) end--;
  return text.slice(0, end);
}

function unquote(text: string): string {
  const pairs: Record<string, string> = { '"': '"', "'": "'", '`': '`', '“': '”' };
  const open = text[0];
  return text.length >= 2 && Object.hasOwn(pairs, open) && pairs[open] === text[text.length - 1] ? text.slice(1, -1) : text;
}

/** Files end with a newline; the user writes their content without one. */
function withFinalNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}
