import { strict as assert } from 'node:assert';
import { MAX_REQUEST_CHARS, parseIntent, parseRequest, type Intent } from '../../../../src/backend/demo/demoIntents';

/** As long as a chat message may be. */
const LONGEST_MESSAGE = 100_000;
/** Generous: each case takes milliseconds; the old patterns took seconds at 3,000 characters and minutes at 20,000. */
const BOUND_MS = 2000;

/** `unit` repeated to `length` characters after `prefix`, then `suffix`. */
function crafted(prefix: string, unit: string, suffix = '', length = LONGEST_MESSAGE): string {
  const body = unit.repeat(Math.ceil((length - prefix.length - suffix.length) / unit.length));
  return prefix + body.slice(0, Math.max(0, length - prefix.length - suffix.length)) + suffix;
}

function timed(parse: (text: string) => Intent, text: string): { ms: number; intent: Intent } {
  const t0 = performance.now();
  const intent = parse(text);
  return { ms: performance.now() - t0, intent };
}

describe('demo model intent parsing: worst cases', () => {
  // Per pattern, the inputs that made it backtrack: long runs of what a repetition takes, ending in
  // what makes the match fail at the last moment, and the keyword repeated so every start is tried.
  const cases: [string, string][] = [
    ['"run" + spaces + "x" (run … in the terminal)', crafted('run', ' ', 'x')],
    ['"execute the command" + spaces + "x"', crafted('execute the command', ' ', 'x')],
    ['"run x" then spaces then "in the terminal" on another line', crafted('run x', ' ', '\nin the terminal x')],
    ['"run x in the terminal" repeated with no end', crafted('', 'run x in the terminal ', 'x')],
    ['"run `" repeated, never closed', crafted('', 'run `', '')],
    ['"run `" + backticks', crafted('run `', '`', '')],
    ['"propose changing" + a path of dots, no "to"', crafted('propose changing a', '.', " x")],
    ['"propose changing a.txt" + spaces, no "to"', crafted('propose changing a.txt', ' ', 'x')],
    ['"suggest a change to" repeated', crafted('', 'suggest a change to ', '')],
    ['"replace line 1 of" + a path of dots', crafted('replace line 1 of a', '.', "'x")],
    ['"save" + a path of dots + a quote', crafted('save a', '.', "'x")],
    ['"close the tab of" + a path of punctuation', crafted('close the tab of a', '!', '"x')],
    ['"delete" + a path of dots + a quote', crafted('delete a', '.', "'x")],
    ['"delete a" repeated + quotes', crafted('', 'delete a.\'', 'x')],
    ['"read" + a path of closing parentheses', crafted('read a', ')', '`x')],
    ['"open" + a path of dots', crafted('open a', '.', '"x')],
    ['"which files are" + spaces', crafted('which files are', ' ', 'x')],
    ['"show" + "warning" repeated, no "saying"', crafted('show', ' warning', '')],
    ['"show warning" repeated, no "saying"', crafted('', 'show warning ', '')],
    ['"show a warning saying" + "!" + "x"', crafted('show a warning saying ', '!', 'x')],
    ['"show a warning saying" + quotes', crafted('show a warning saying ', '"', '')],
    ['"find files matching" + dots + "x"', crafted('find files matching ', '.', 'x')],
    ['"find" + a word + spaces (find … files)', crafted('find aaaa', ' ', 'x')],
    ['"find all the" repeated', crafted('', 'find all the ', '')],
    ['"find" + a word with no wildcard', crafted('find ', 'a', '')],
    ['"errors in" + dots + a quote', crafted('errors in ', '.', "'y")],
    ['"errors in" + a path then punctuation + a quote', crafted('errors in a/b', ',', "'y")],
    ['"diagnostics for x" repeated', crafted('diagnostics', ' for x', '')],
    ['spaces only between two words', crafted('a', ' ', 'b')],
    ['quotes only', crafted('', '"', '')],
    ['backticks only', crafted('', '`', '')],
    ['curly quotes only', crafted('', '“', '')],
    ['"in" + spaces, many lines', crafted('', 'in \n', 'x')],
    ['"find usages of" + spaces, no name', crafted('find usages of', ' ', '!')],
    ['"find all the" + spaces + "usages" repeated', crafted('', 'find all the usages ', '')],
    ['"where is x" + spaces, no "used"', crafted('where is x', ' ', 'y')],
    ['"search the code for" repeated', crafted('', 'search the code for ', '')],
    ['"search for" + question marks', crafted('search for ', '?', '')],
    ['"grep" + spaces', crafted('grep', ' ', 'x')],
    ['"what have I" + spaces', crafted('what have I', ' ', 'x')],
    ['"show me my" + spaces, no "changes"', crafted('show me my', ' ', 'x')],
    ['"list all" + spaces, no "tasks"', crafted('list all', ' ', 'x')],
  ];

  for (const [name, text] of cases) {
    it(`parses ${text.length.toLocaleString('en-US')} characters of ${name} in under ${BOUND_MS} ms, without the length cap`, () => {
      const { ms } = timed(parseRequest, text);
      assert.ok(ms < BOUND_MS, `${ms.toFixed(0)} ms`);
    });
  }

  it(`reads no request longer than ${MAX_REQUEST_CHARS.toLocaleString('en-US')} characters: it is unknown, at once`, () => {
    const { ms, intent } = timed(parseIntent, crafted('delete notes.txt ', ' ', 'x'));
    assert.deepEqual(intent, { kind: 'unknown' });
    assert.ok(ms < BOUND_MS, `${ms.toFixed(0)} ms`);
    assert.deepEqual(parseIntent(crafted('delete notes.txt ', ' ', 'x', MAX_REQUEST_CHARS)), { kind: 'delete', path: 'notes.txt' });
  });
});

describe('demo model intent parsing: what it understands', () => {
  const asks: [string, Intent][] = [
    ['open README.md', { kind: 'open', path: 'README.md' }],
    ['Open the file "src/a.ts".', { kind: 'open', path: 'src/a.ts' }],
    ['(open notes.md)', { kind: 'open', path: 'notes.md' }],
    ['open .', { kind: 'open', path: '.' }],
    ['read logo.png!', { kind: 'read', path: 'logo.png' }],
    ['please delete the file notes.txt', { kind: 'delete', path: 'notes.txt' }],
    ["remove 'a b'", { kind: 'delete', path: 'a' }],
    ['save notes.md', { kind: 'save', path: 'notes.md' }],
    ['Close the tab of hello.txt.', { kind: 'close', path: 'hello.txt' }],
    ['close "hello.txt",', { kind: 'close', path: 'hello.txt' }],
    ['run `ls`', { kind: 'run', command: 'ls' }],
    ['run `` then run `ls -la`', { kind: 'run', command: 'ls -la' }],
    ['run `unclosed and run ls in the terminal', { kind: 'run', command: '`unclosed and run ls' }],
    ['please run the command npm test in a terminal.', { kind: 'run', command: 'npm test' }],
    ['first line\nrun make\nin the terminal', { kind: 'run', command: 'make' }],
    ['propose changing hello.txt to Hello!', { kind: 'diff', path: 'hello.txt', content: 'Hello!\n' }],
    ['suggest an edit of "a.md" to: "two\nlines"', { kind: 'diff', path: 'a.md', content: 'two\nlines\n' }],
    ['replace line 12 of notes.md with # Notes', { kind: 'applyEdit', path: 'notes.md', line: 12, text: '# Notes' }],
    ['show a warning saying "hi there"!', { kind: 'message', severity: 'warning', text: 'hi there' }],
    ['display an error message saying !!!', { kind: 'message', severity: 'error', text: '!!!' }],
    ['show\na warning saying hi', { kind: 'unknown' }],
    ['which files are open?', { kind: 'openEditors' }],
    ['which folders are open?', { kind: 'folders' }],
    ['find all TypeScript files', { kind: 'findFiles', pattern: '**/*.ts' }],
    ['find files matching *.md.', { kind: 'findFiles', pattern: '**/*.md' }],
    ['find src/**/*.test.ts', { kind: 'findFiles', pattern: 'src/**/*.test.ts' }],
    ['any errors in src/a.ts?', { kind: 'diagnostics', path: 'src/a.ts' }],
    ['errors in "lib/x.js".', { kind: 'diagnostics', path: 'lib/x.js' }],
    ['errors in main', { kind: 'diagnostics' }],
    ['what did I select?', { kind: 'selection' }],
    ['find usages of greet', { kind: 'references', symbol: 'greet' }],
    ['Find all references to `Greeting`.', { kind: 'references', symbol: 'Greeting' }],
    ['where is greet used?', { kind: 'references', symbol: 'greet' }],
    ['search for TODO', { kind: 'searchText', query: 'TODO' }],
    ['search the code for "hello world"?', { kind: 'searchText', query: 'hello world' }],
    ['grep fixme', { kind: 'searchText', query: 'fixme' }],
    ['search for files matching *.md', { kind: 'findFiles', pattern: '**/*.md' }],
    ['what changed?', { kind: 'gitChanges' }],
    ['what have I changed', { kind: 'gitChanges' }],
    ['git status', { kind: 'gitChanges' }],
    ['show me my uncommitted changes', { kind: 'gitChanges' }],
    ['what tasks are there?', { kind: 'tasks' }],
    ['list the tasks', { kind: 'tasks' }],
    ['write me a sonnet', { kind: 'unknown' }],
  ];
  for (const [ask, intent] of asks) {
    it(`${JSON.stringify(ask)} → ${JSON.stringify(intent)}`, () => assert.deepEqual(parseIntent(ask), intent));
  }
  it('a kind of file named after an object\'s own keys ("constructor", "__proto__") is read as an unknown kind, never as the key\'s inherited value', () => {
    for (const word of ['constructor', '__proto__', 'hasownproperty']) {
      assert.deepEqual(parseIntent(`find all ${word} files`), parseIntent('find all nosuchkind files'), word);
    }
  });
});
