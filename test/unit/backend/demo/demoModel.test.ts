import { strict as assert } from 'node:assert';
import type { Backend } from '../../../../src/backend';
import { createBackend } from '../../../../src/backend';
import { ToolRegistry } from '../../../../src/core/registry';
import type { ClientToolInvokeRequest, ClientToolInvokeResponse, ToolGroupDefinition } from '../../../../src/protocol';
import { editorToolGroup } from '../../../../src/tools/editor/group';
import { ideToolGroup } from '../../../../src/tools/ide/group';
import { languageToolGroup } from '../../../../src/tools/language/group';
import { searchToolGroup } from '../../../../src/tools/search/group';
import { sourceControlToolGroup } from '../../../../src/tools/sourceControl/group';
import { tasksToolGroup } from '../../../../src/tools/tasks/group';
import { terminalToolGroup } from '../../../../src/tools/terminal/group';
import { workspaceToolGroup } from '../../../../src/tools/workspace/group';
import { ideGroup, TestClient } from '../../../support/backend-client';

const TOKEN = 'demo-token-0123456789abcdef';
const PNG = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13]);

type Answer = Omit<ClientToolInvokeResponse, 'type' | 'requestId'>;
const json = (value: unknown): Answer => ({ success: true, content: [{ type: 'json', value }] });
/** The note that used to end every demo answer; the chat's header now says "Offline demo model" once (issue 16). */
const DEMO_NOTE = /offline demo model: run/;
const denied = (tool: string): Answer => ({ success: false, content: [], errorCode: 'PERMISSION_DENIED', errorMessage: `The user denied ${tool}.` });

/** The groups exactly as the extension sends them in hello: the real tools' names, schemas and descriptions. */
function extensionGroups(): ToolGroupDefinition[] {
  const registry = new ToolRegistry();
  for (const g of [ideToolGroup(), workspaceToolGroup(), editorToolGroup(), terminalToolGroup(), searchToolGroup(), languageToolGroup(), sourceControlToolGroup(), tasksToolGroup()]) registry.register(g.group, g.tools);
  const definitions = registry.definitions();
  registry.dispose();
  return definitions;
}

/** What the fake editor answers, per tool; a test replaces an entry to script another outcome. */
function defaultAnswers(): Record<string, (req: ClientToolInvokeRequest) => Answer> {
  return {
    OpenFile: (req) => ({ success: true, content: [{ type: 'text', text: `Opened ${String(req.arguments.path)}` }] }),
    GetSelection: () => json({ activeEditor: true, file: 'src/a.ts', language: 'typescript', range: { startLine: 10, startColumn: 1, endLine: 10, endColumn: 19 }, text: 'const answer = 42;', isEmpty: false }),
    ShowMessage: () => ({ success: true, content: [{ type: 'text', text: 'shown' }] }),
    ReadFile: (req) =>
      req.arguments.path === 'notes.md'
        ? { success: true, content: [{ type: 'text', text: req.arguments.startLine === 1 ? '# Old title\n' : '# Old title\nbody\n' }] }
        : { success: true, content: [{ type: 'binary', mimeType: 'image/png', filename: 'logo.png', bytes: PNG }] },
    DeleteFile: (req) => json({ deleted: String(req.arguments.path) }),
    FindFiles: () => json({ files: ['a.ts', 'b.ts', 'c.ts'], count: 3, truncated: false }),
    GetOpenEditors: () =>
      json({
        editors: [
          { path: 'hello.txt', label: 'hello.txt', active: true, dirty: false, language: 'plaintext', kind: 'text', group: 1 },
          { path: 'notes.md', label: 'notes.md', active: false, dirty: true, language: 'markdown', kind: 'text', group: 1 },
        ],
        count: 2,
      }),
    GetDiagnostics: (req) =>
      json({
        diagnostics: [
          { path: String(req.arguments.path ?? 'src/x.ts'), severity: 'error', message: "Cannot find name 'foo'.", range: { startLine: 3, startColumn: 5, endLine: 3, endColumn: 8 }, source: 'ts' },
          { path: 'src/y.ts', severity: 'warning', message: "'bar' is declared but never used.", range: { startLine: 1, startColumn: 7, endLine: 1, endColumn: 10 }, source: 'ts' },
        ],
        total: 2,
        counts: { error: 1, warning: 1, information: 0, hint: 0 },
      }),
    GetWorkspaceFolders: () => json({ folders: [{ name: 'sample', path: '/home/me/sample' }], multiRoot: false, trusted: true }),
    OpenDiff: (req) => json({ path: req.arguments.path, decision: 'accepted', content: req.arguments.newContent, editedByUser: false }),
    ApplyEdit: (req) => json({ path: req.arguments.path, applied: 1, lineCount: 2, saved: false, dirty: true }),
    SaveDocument: (req) => json({ path: req.arguments.path, saved: true, status: 'saved', message: 'Saved.' }),
    CloseTab: (req) => json({ path: req.arguments.path, closed: 1, keptDirty: 0 }),
    RunInTerminal: (req) => json({ command: req.arguments.command, cwd: '.', exitCode: 0, timedOut: false, output: 'hello.txt\nnotes.md\nsrc', ranIn: 'terminal' }),
    FindReferences: () => json({ at: 'src/sample.ts:6:17', locations: [{ location: 'app/main.ts:8:10', text: 'return greet(guest);' }, { location: 'src/sample.ts:6:17', text: 'export function greet() {' }], total: 2 }),
    SearchText: () => json({ matches: [{ location: 'app/main.ts:11:4', text: "// TODO: say goodbye in the guest's own language." }], matchingLines: 1, files: 1, more: 0, complete: true }),
    GitStatus: () => json({ repository: '.', branch: 'main', staged: ['src/b.ts (added)'], unstaged: ['app/main.ts (modified)'], untracked: [], conflicts: [] }),
    ListTasks: () => json({ tasks: [{ name: 'build', source: 'npm', command: 'npm run build' }] }),
  };
}

describe('backend offline demo model', () => {
  let backend: Backend;
  let client: TestClient;
  let answers: ReturnType<typeof defaultAnswers>;
  let thread = 0;

  beforeEach(async () => {
    answers = defaultAnswers();
    backend = await createBackend({ token: TOKEN });
    ({ client } = await TestClient.open(backend.url, TOKEN, { toolGroups: extensionGroups() }));
    client.autoAnswer((req: ClientToolInvokeRequest) => answers[req.toolName]?.(req) ?? { success: false, content: [], errorCode: 'UNKNOWN_TOOL', errorMessage: 'no' });
  });

  afterEach(async () => {
    await client.drop();
    await backend.close();
  });

  /** Runs one request in a fresh thread; returns the tools called, in order, and the answer. */
  async function ask(text: string) {
    const { runId, finished } = await client.run(`t${++thread}`, text);
    assert.equal(finished.reason, 'completed');
    const called = client.all('toolCallStarted', (m) => m.runId === runId).map((m) => m.toolName);
    const requests = client.all('clientToolInvokeRequest', (m) => m.threadId === `t${thread}`);
    const deltas = client.all('textDelta', (m) => m.runId === runId).length;
    return { called, requests, answer: client.text(runId), deltas };
  }

  it('says it is the demo model in welcome', () => {
    assert.deepEqual(client.all('welcome')[0].server.model, { name: 'offline-demo', offline: true });
    assert.equal(backend.model.offline, true);
  });

  it('"open README.md": expands the IDE container, calls OpenFile, says it opened the file', async () => {
    const r = await ask('open README.md');
    assert.deepEqual(r.called, ['IDE', 'OpenFile']);
    assert.deepEqual(r.requests[0].arguments, { path: 'README.md' });
    assert.match(r.answer, /^I opened README\.md in the editor\./);
    assert.doesNotMatch(r.answer, DEMO_NOTE);
    assert.ok(r.deltas >= 3, `streamed in ${r.deltas} deltas`);
  });

  it('"what did I select?": calls GetSelection and summarises the JSON it returns', async () => {
    const r = await ask('what did I select?');
    assert.deepEqual(r.called, ['IDE', 'GetSelection']);
    assert.match(r.answer, /^You selected 18 characters in src\/a\.ts from line 10:\n\n> const answer = 42;/);
  });

  it('"show a warning saying hi": calls ShowMessage with severity warning', async () => {
    const r = await ask('show a warning saying hi');
    assert.deepEqual(r.called, ['IDE', 'ShowMessage']);
    assert.deepEqual(r.requests[0].arguments, { message: 'hi', severity: 'warning' });
    assert.match(r.answer, /^I showed a warning saying "hi"\./);
  });

  it('"read logo.png": calls ReadFile and describes the binary it got', async () => {
    const r = await ask('read logo.png');
    assert.deepEqual(r.called, ['IDE', 'ReadFile']);
    assert.match(r.answer, /^logo\.png is an image\/png file of 12 bytes\./);
  });

  it('"delete notes.txt": calls DeleteFile and says the file was deleted', async () => {
    const r = await ask('delete notes.txt');
    assert.deepEqual(r.called, ['IDE', 'DeleteFile']);
    assert.deepEqual(r.requests[0].arguments, { path: 'notes.txt' });
    assert.match(r.answer, /^I deleted notes\.txt\. The tool reported deleted: "notes\.txt"\./);
  });

  it('"delete notes.txt" declined: says the user declined and nothing was deleted', async () => {
    answers.DeleteFile = () => denied('DeleteFile');
    const r = await ask('delete notes.txt');
    assert.deepEqual(r.called, ['IDE', 'DeleteFile']);
    assert.match(r.answer, /^You declined, so notes\.txt was not deleted\./);
  });

  it('calls the tool directly once the group is expanded (second request in the same thread)', async () => {
    await client.run('same', 'open README.md');
    const { runId } = await client.run('same', 'read logo.png');
    assert.deepEqual(client.all('toolCallStarted', (m) => m.runId === runId).map((m) => m.toolName), ['ReadFile']);
  });

  it('answers a question sent with the editor selection by quoting the selection it received', async () => {
    client.send({ type: 'userMessage', threadId: 'ctx', text: 'What does this do?', context: { file: 'src/a.ts', language: 'typescript', selection: { startLine: 9, startCharacter: 0, endLine: 9, endCharacter: 18 }, selectedText: 'const answer = 42;' } });
    const { runId } = await client.next('runStarted', (m) => m.threadId === 'ctx');
    await client.next('runFinished', (m) => m.runId === runId);
    const answer = client.all('textDelta', (m) => m.runId === runId).map((m) => m.text).join('');
    assert.deepEqual(client.all('toolCallStarted', (m) => m.runId === runId), []);
    assert.match(answer, /^You asked "What does this do\?" about this part of your editor:/);
    assert.match(answer, /File: src\/a\.ts \(typescript\)/);
    assert.match(answer, /const answer = 42;/);
    assert.doesNotMatch(answer, DEMO_NOTE);
  });

  it('answers an unknown request with the list of what it understands and how to configure a real model', async () => {
    const r = await ask('write me a sonnet');
    assert.deepEqual(r.called, []);
    const examples = ['open notes.md', 'what did I select?', 'show a warning saying hi', 'ask me whether to continue', 'read logo.png', 'delete hello.txt', 'find all TypeScript files', 'which files are open?', 'any errors?', 'which folders are open?', 'propose changing hello.txt to', 'replace line 1 of notes.md with', 'save notes.md', 'close hello.txt', 'run ls in the terminal', 'find usages of greet', 'search for TODO', 'what changed?', 'what tasks are there?'];
    for (const example of examples) assert.ok(r.answer.includes(example), example);
    assert.match(r.answer, /clientTools\.model\.baseUrl/);
    assert.match(r.answer, /clientTools\.model\.name/);
    assert.match(r.answer, /Client Tools: Set API Key/);
    assert.match(r.answer, /OPENAI_BASE_URL, CLIENT_TOOLS_MODEL and OPENAI_API_KEY/);
  });
  it('after the conversation deleted a file, the help no longer suggests deleting, opening or closing it; a proposal, which creates it again, stays; once written again it is back', async () => {
    const helpIn = async (threadId: string, text: string) => {
      const { runId } = await client.run(threadId, text);
      return client.text(runId);
    };
    await client.run('gone', 'delete hello.txt');
    let help = await helpIn('gone', 'write me a sonnet');
    assert.ok(!help.includes('"delete hello.txt"') && !help.includes('"close hello.txt"'), help);
    assert.ok(help.includes('propose changing hello.txt to Hello!') && help.includes('"open notes.md"'), help);
    // Declined: the file is still there, and so is the example.
    answers.DeleteFile = () => denied('DeleteFile');
    await client.run('kept', 'delete hello.txt');
    assert.ok((await helpIn('kept', 'write me a sonnet')).includes('"delete hello.txt"'));
    answers.OpenDiff = () => json({ decision: 'accepted' });
    await client.run('gone', 'propose changing hello.txt to Hello!');
    help = await helpIn('gone', 'write me a sonnet');
    assert.ok(help.includes('"delete hello.txt"') && help.includes('"close hello.txt"'), help);
  });

  it('"ask me whether to continue": ShowMessage with Yes and No, and the answer names the button the user chose', async () => {
    answers.ShowMessage = () => json({ chosen: 'No' });
    const r = await ask('ask me whether to continue');
    assert.deepEqual(r.called, ['IDE', 'ShowMessage']);
    assert.deepEqual(r.requests[0].arguments, { message: 'Should I continue?', severity: 'info', buttons: ['Yes', 'No'] });
    assert.equal(r.answer, 'I asked "Should I continue?" and you answered "No".');
    answers.ShowMessage = () => json({ chosen: null });
    assert.equal((await ask('Ask me if to go on?')).answer, 'I asked "Should I go on?" and you gave no answer.');
  });

  describe('the Workspace, Editor and Terminal tools', () => {
    // Each phrase, with the calls it makes (group container first: the groups start collapsed) and the tool's arguments.
    const phrases: [string, string[], Record<string, unknown>][] = [
      ['find all TypeScript files', ['Workspace', 'FindFiles'], { pattern: '**/*.ts' }],
      ['Find all python files', ['Workspace', 'FindFiles'], { pattern: '**/*.py' }],
      ['find .md files', ['Workspace', 'FindFiles'], { pattern: '**/*.md' }],
      ['find files matching *.md', ['Workspace', 'FindFiles'], { pattern: '**/*.md' }],
      ['find src/**/*.test.ts', ['Workspace', 'FindFiles'], { pattern: 'src/**/*.test.ts' }],
      ['which files are open?', ['Workspace', 'GetOpenEditors'], {}],
      ['List open editors', ['Workspace', 'GetOpenEditors'], {}],
      ['show problems', ['Workspace', 'GetDiagnostics'], {}],
      ['any errors?', ['Workspace', 'GetDiagnostics'], {}],
      ['diagnostics for x.ts', ['Workspace', 'GetDiagnostics'], { path: 'x.ts' }],
      ['any errors in src/a.ts?', ['Workspace', 'GetDiagnostics'], { path: 'src/a.ts' }],
      ['which folders are open?', ['Workspace', 'GetWorkspaceFolders'], {}],
      ['workspace folders', ['Workspace', 'GetWorkspaceFolders'], {}],
      ['propose changing hello.txt to Hello from the demo!', ['Editor', 'OpenDiff'], { path: 'hello.txt', newContent: 'Hello from the demo!\n' }],
      ['Propose changing "hello.txt" to "open the door"', ['Editor', 'OpenDiff'], { path: 'hello.txt', newContent: 'open the door\n' }],
      ['save notes.md', ['Editor', 'SaveDocument'], { path: 'notes.md' }],
      ['close hello.txt', ['Editor', 'CloseTab'], { path: 'hello.txt' }],
      ['Close the tab of hello.txt.', ['Editor', 'CloseTab'], { path: 'hello.txt' }],
      ['run `ls`', ['Terminal', 'RunInTerminal'], { command: 'ls' }],
      ['run ls in the terminal', ['Terminal', 'RunInTerminal'], { command: 'ls' }],
      ['please run `git status --short` for me', ['Terminal', 'RunInTerminal'], { command: 'git status --short' }],
    ];
    for (const [phrase, calls, args] of phrases) {
      it(`"${phrase}" calls ${calls[1]} with ${JSON.stringify(args)}`, async () => {
        const r = await ask(phrase);
        assert.deepEqual(r.called, calls);
        assert.deepEqual(r.requests.map((q) => q.toolName), [calls[1]]);
        assert.deepEqual(r.requests[0].arguments, args);
        assert.doesNotMatch(r.answer, DEMO_NOTE);
      });
    }

    it('one plain request per Search, Language, SourceControl and Tasks group: the group expanded, the tool called, the answer from its result', async () => {
      const cases: [string, string[], Record<string, unknown>, RegExp][] = [
        ['find usages of greet', ['Language', 'FindReferences'], { symbol: 'greet' }, /^`greet` appears in 2 places:\n\n- app\/main\.ts:8:10 `return greet\(guest\);`\n- src\/sample\.ts:6:17 /],
        ['search for TODO', ['Search', 'SearchText'], { query: 'TODO' }, /^1 line matches `TODO` in 1 file:\n\n- app\/main\.ts:11:4 `\/\/ TODO: say goodbye/],
        ['what changed?', ['SourceControl', 'GitStatus'], {}, /^On branch `main`:\n\n- 1 file staged: src\/b\.ts \(added\)\n- 1 file changed: app\/main\.ts \(modified\)$/],
        ['what tasks are there?', ['Tasks', 'ListTasks'], {}, /^The workspace has 1 task:\n\n- build \(npm: `npm run build`\)$/],
      ];
      for (const [phrase, calls, args, answer] of cases) {
        const r = await ask(phrase);
        assert.deepEqual(r.called, calls, phrase);
        assert.deepEqual(r.requests[0].arguments, args, phrase);
        assert.match(r.answer, answer, phrase);
      }
    });

    it('"what changed?" without a repository, "search for" with no match: plain answers', async () => {
      answers.GitStatus = () => ({ success: false, content: [], errorCode: 'NOT_FOUND', errorMessage: 'no Git repository' });
      assert.equal((await ask('what changed?')).answer, 'VS Code has no Git repository open for this workspace, so there are no changes to show.');
      answers.SearchText = () => json({ matches: [], matchingLines: 0, files: 0, more: 0, complete: true });
      assert.equal((await ask('search for nothing-here')).answer, 'Nothing in the workspace matches `nothing-here`.');
    });

    it('"find all TypeScript files": names the files found', async () => {
      const r = await ask('find all TypeScript files');
      assert.match(r.answer, /^Found 3 files matching `\*\*\/\*\.ts`: a\.ts, b\.ts, c\.ts\./);
    });

    it('"find files matching *.md" with no match: says nothing matches', async () => {
      answers.FindFiles = () => json({ files: [], count: 0, truncated: false });
      const r = await ask('find files matching *.md');
      assert.match(r.answer, /^No files match `\*\*\/\*\.md`\./);
    });

    it('"which files are open?": lists the tabs, marking the active one and unsaved changes', async () => {
      const r = await ask('which files are open?');
      assert.match(r.answer, /^2 editors are open: hello\.txt \(active\), notes\.md \(unsaved changes\)\./);
    });

    it('"any errors?": counts the problems by severity and lists them with file and line', async () => {
      const r = await ask('any errors?');
      assert.match(r.answer, /^2 problems in the workspace \(1 error, 1 warning\):\n\n- src\/x\.ts:3 error: Cannot find name 'foo'\.\n- src\/y\.ts:1 warning: /);
    });

    it('"diagnostics for x.ts" with none: says the file has no problems', async () => {
      answers.GetDiagnostics = () => json({ diagnostics: [], total: 0, counts: { error: 0, warning: 0, information: 0, hint: 0 } });
      const r = await ask('diagnostics for x.ts');
      assert.match(r.answer, /^No problems in x\.ts\./);
    });

    it('"which folders are open?": names each folder with its path and says whether the workspace is trusted', async () => {
      const r = await ask('which folders are open?');
      assert.match(r.answer, /^1 workspace folder is open: sample \(\/home\/me\/sample\)\. The workspace is trusted\./);
    });

    it('"propose changing hello.txt to …" accepted: says the change was accepted', async () => {
      const r = await ask('propose changing hello.txt to Hi');
      assert.match(r.answer, /^You accepted the change to hello\.txt, and it is saved\./);
    });

    it('"propose changing hello.txt to …" accepted after the user edited it: says so', async () => {
      answers.OpenDiff = () => json({ path: 'hello.txt', decision: 'accepted', content: 'Hi!!\n', editedByUser: true });
      const r = await ask('propose changing hello.txt to Hi');
      assert.match(r.answer, /^You accepted the change to hello\.txt, with your own edits, and it is saved\./);
    });

    it('"propose changing hello.txt to …" rejected: says it was rejected and the file is unchanged', async () => {
      answers.OpenDiff = () => json({ path: 'hello.txt', decision: 'rejected' });
      const r = await ask('propose changing hello.txt to Hi');
      assert.match(r.answer, /^You rejected the change to hello\.txt, so it is unchanged\./);
    });

    it('"propose changing hello.txt to …" partly accepted: names the hunks kept and rejected', async () => {
      answers.OpenDiff = () => json({ path: 'hello.txt', decision: 'partial', keptHunks: [2], rejectedHunks: [1, 3], content: 'x\n', editedByUser: false });
      const r = await ask('propose changing hello.txt to Hi');
      assert.match(r.answer, /^You accepted part of the change to hello\.txt \(kept hunks: 2; rejected: 1, 3\), and it is saved\./);
    });

    it('"replace line 1 of notes.md with …": reads that line, then replaces exactly it with ApplyEdit', async () => {
      const r = await ask('replace line 1 of notes.md with # Notes');
      assert.deepEqual(r.called, ['IDE', 'ReadFile', 'Editor', 'ApplyEdit']);
      assert.deepEqual(r.requests[0].arguments, { path: 'notes.md', startLine: 1, endLine: 1 });
      assert.deepEqual(r.requests[1].arguments, { path: 'notes.md', edits: [{ startLine: 1, startColumn: 1, endLine: 1, endColumn: 12, newText: '# Notes' }] });
      assert.match(r.answer, /^I replaced line 1 of notes\.md\. It is not saved yet: say "save notes\.md" to save it\./);
    });

    it('"replace line 1 of notes.md with …" denied: says the file was not changed', async () => {
      answers.ApplyEdit = () => denied('ApplyEdit');
      const r = await ask('replace line 1 of notes.md with # Notes');
      assert.match(r.answer, /^You declined, so notes\.md was not changed\./);
    });

    it('"replace line 5 of notes.md with …" past the end: says so without calling ApplyEdit', async () => {
      answers.ReadFile = () => ({ success: false, content: [{ type: 'text', text: 'Error (INVALID_ARGUMENTS): startLine: notes.md has only 2 lines' }], errorCode: 'INVALID_ARGUMENTS', errorMessage: 'startLine: notes.md has only 2 lines' });
      const r = await ask('replace line 5 of notes.md with x');
      assert.deepEqual(r.called, ['IDE', 'ReadFile']);
      assert.match(r.answer, /^I could not read line 5 of notes\.md, so I changed nothing\. ReadFile said: Error \(INVALID_ARGUMENTS\): startLine: notes\.md has only 2 lines/);
    });

    it('"save notes.md": says it saved, or that there was nothing to save', async () => {
      assert.match((await ask('save notes.md')).answer, /^I saved notes\.md\./);
      answers.SaveDocument = () => json({ path: 'notes.md', saved: false, status: 'notDirty', message: 'The file has no unsaved changes; nothing to save.' });
      assert.match((await ask('save notes.md')).answer, /^notes\.md had no unsaved changes, so there was nothing to save\./);
    });

    it('"close hello.txt": says it closed the tab, or that no tab showed the file', async () => {
      assert.match((await ask('close hello.txt')).answer, /^I closed hello\.txt\./);
      answers.CloseTab = () => json({ path: 'hello.txt', closed: 0, keptDirty: 0, message: 'No tab showed this file.' });
      assert.match((await ask('close hello.txt')).answer, /^No tab showed hello\.txt, so there was nothing to close\./);
    });

    it('"run `ls`": gives the exit code and the first lines of the output', async () => {
      const r = await ask('run `ls`');
      assert.match(r.answer, /^Exit code 0 from `ls`:\n\n```\nhello\.txt\nnotes\.md\nsrc\n```/);
    });

    it('"run `false`" failing with no output: gives the exit code', async () => {
      answers.RunInTerminal = (req) => json({ command: req.arguments.command, cwd: '.', exitCode: 1, timedOut: false, output: '', ranIn: 'process' });
      assert.match((await ask('run `false`')).answer, /^Exit code 1 from `false`, with no output\./);
    });

    it('"run `ls`" with output holding 100,000 spaces before its last word: answers within seconds (trailing space was stripped with a backtracking pattern: minutes)', async () => {
      const output = `total${' '.repeat(100_000)}done\n`;
      answers.RunInTerminal = (req) => json({ command: req.arguments.command, cwd: '.', exitCode: 0, timedOut: false, output, ranIn: 'terminal' });
      const t0 = performance.now();
      const r = await ask('run `ls`');
      assert.ok(performance.now() - t0 < 5000, `${(performance.now() - t0).toFixed(0)} ms`);
      assert.ok(r.answer.startsWith(`Exit code 0 from \`ls\`:\n\n\`\`\`\ntotal${' '.repeat(100_000)}done\n\`\`\``));
    });

    it('a request longer than 10,000 characters: says how long it is and the limit, calls nothing', async () => {
      const r = await ask(`delete notes.txt ${'x'.repeat(10_000)}`);
      assert.deepEqual(r.called, []);
      assert.match(r.answer, /^Your message is 10,017 characters long; the offline demo model reads requests of up to 10,000 characters, so I did nothing with it\. As the offline demo model I understand only simple requests like these:/);
      assert.doesNotMatch(r.answer, DEMO_NOTE);
    });

    it('"run `ls`" denied: says the command did not run', async () => {
      answers.RunInTerminal = () => denied('RunInTerminal');
      assert.match((await ask('run `ls`')).answer, /^You declined, so I did not run `ls`\./);
    });

    it('"run `ls`" refused by the editor: says it failed and why', async () => {
      answers.RunInTerminal = () => ({ success: false, content: [], errorCode: 'WORKSPACE_UNTRUSTED', errorMessage: 'tool RunInTerminal is off while the workspace is in restricted mode' });
      assert.match((await ask('run `ls`')).answer, /^RunInTerminal failed: Error \(WORKSPACE_UNTRUSTED\): tool RunInTerminal is off while the workspace is in restricted mode/);
    });

    it('expands a collapsed group for the exact tool rather than call a visible one that only looks alike ("open" is not OpenDiff)', async () => {
      await client.run('alike', 'propose changing hello.txt to Hi');
      const { runId } = await client.run('alike', 'open README.md');
      assert.deepEqual(client.all('toolCallStarted', (m) => m.runId === runId).map((m) => m.toolName), ['IDE', 'OpenFile']);
    });

    it('replaces a line with a ReadFile that reads only whole files: takes the line from the whole text', async () => {
      const other = (await TestClient.open(backend.url, TOKEN, { toolGroups: [ideGroup(), ...extensionGroups().filter((g) => g.name === 'Editor')] })).client;
      try {
        other.autoAnswer((req) => (req.toolName === 'ReadFile' ? { success: true, content: [{ type: 'text', text: 'one\ntwo\nthree' }] } : answers[req.toolName]?.(req)));
        const { runId } = await other.run('whole', 'replace line 3 of notes.md with 3');
        const requests = other.all('clientToolInvokeRequest', (m) => m.threadId === 'whole');
        assert.deepEqual(requests[0].arguments, { path: 'notes.md' });
        assert.deepEqual(requests[1].arguments, { path: 'notes.md', edits: [{ startLine: 3, startColumn: 1, endLine: 3, endColumn: 6, newText: '3' }] });
        assert.match(other.text(runId), /^I replaced line 3 of notes\.md\./);
      } finally {
        await other.drop();
      }
    });
  });
});
