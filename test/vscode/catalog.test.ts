/**
 * The Workspace, Editor and Terminal groups, the VS Code tools bridge, the API for other extensions
 * and the editor context push, each against the real VS Code API, driven by a scripted backend.
 *
 * Permission prompts are modal dialogs this suite cannot click; the prompt paths of ApplyEdit,
 * RunInTerminal and an API tool are proven here up to "the user is being asked" and a cancel that
 * changes nothing (the allowed paths are unit-tested with the fake host). Those tests come last,
 * because a modal left open by a cancelled call stays until the window closes.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ClientToServer, ClientToolInvokeResponse, ToolGroupDefinition } from '../../src/protocol';
import type { ClientToolsApi } from '../../src/vscode/context';
import { TerminalRunner } from '../../src/vscode/host/terminalRunner';
import { applyEdits } from '../../src/vscode/host/editorHost';
import type { ScriptedBackend } from '../support/scripted-backend';
import { EXTENSION_ID, until, useScriptedConnection } from './support/scriptedConnection';

const TOKEN = 'catalog-test-token';
const DIFF_SCHEME = 'client-tools-diff';

function json<T = Record<string, unknown>>(res: ClientToolInvokeResponse): T {
  assert.equal(res.success, true, `${res.errorCode}: ${res.errorMessage}`);
  const item = res.content[0];
  assert.ok(item && item.type === 'json', `expected JSON content, got ${JSON.stringify(res.content)}`);
  return item.value as T;
}

function diffTabs(): vscode.Tab[] {
  return vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.scheme === DIFF_SCHEME);
}

/** Tool groups the backend was told about after message `from`: hello groups and injected ones. */
function groupsAnnounced(received: readonly ClientToServer[], from = 0): ToolGroupDefinition[] {
  return received.slice(from).flatMap((m) => (m.type === 'hello' ? m.toolGroups : m.type === 'updateToolGroups' ? (m.augmentation.injectGroups ?? []) : []));
}

describe('the extended catalog in a real VS Code', function () {
  this.timeout(60_000);
  const connection = useScriptedConnection(TOKEN);
  let api: ClientToolsApi;
  let backend: ScriptedBackend;
  let workspace: string;
  const file = (rel: string) => path.join(workspace, rel);

  const send = (toolName: string, args: Record<string, unknown>): string => backend.invoke(toolName, args);
  const response = (requestId: string, timeoutMs = 15_000) => backend.first('clientToolInvokeResponse', (m) => m.requestId === requestId, timeoutMs);
  const invoke = (toolName: string, args: Record<string, unknown>) => response(send(toolName, args));

  before(() => ({ api, backend, workspace } = connection()));

  it('offers the Workspace, Editor and Terminal groups in hello; ApplyEdit and RunInTerminal ask first', async () => {
    const hello = await backend.first('hello');
    const tools = (group: string) => hello.toolGroups.find((g) => g.name === group)?.tools ?? [];
    assert.deepEqual(tools('Workspace').map((t) => t.name), ['GetWorkspaceFolders', 'FindFiles', 'GetOpenEditors', 'GetDiagnostics']);
    assert.deepEqual(tools('Editor').map((t) => t.name), ['OpenDiff', 'ApplyEdit', 'SaveDocument', 'CloseTab']);
    assert.deepEqual(tools('Terminal').map((t) => t.name), ['RunInTerminal']);
    const ours = hello.toolGroups.filter((g) => ['IDE', 'Workspace', 'Editor', 'Terminal'].includes(g.name));
    const asks = ours.flatMap((g) => g.tools).filter((t) => t.requiresPermission).map((t) => t.name).sort();
    assert.deepEqual(asks, ['ApplyEdit', 'DeleteFile', 'RunInTerminal']);
  });

  it('GetWorkspaceFolders names the open folder', async () => {
    const v = json<{ folders: { name: string; path: string }[]; trusted: boolean }>(await invoke('GetWorkspaceFolders', {}));
    assert.equal(v.folders.length, 1);
    assert.equal(fs.realpathSync(v.folders[0].path), fs.realpathSync(workspace));
    assert.equal(v.trusted, true);
  });

  it('FindFiles leaves out files.exclude, search.exclude and .gitignore matches, and caps the count', async () => {
    const files = ['src/found.ts', 'ignored/a.ts', 'build.log', 'by-files-exclude/x.ts', 'by-search-exclude/y.ts'];
    for (const f of files) {
      fs.mkdirSync(path.dirname(file(f)), { recursive: true });
      fs.writeFileSync(file(f), '// fixture\n');
    }
    fs.writeFileSync(file('.gitignore'), 'ignored/\n*.log\n');
    const files0 = vscode.workspace.getConfiguration('files');
    const search0 = vscode.workspace.getConfiguration('search');
    await files0.update('exclude', { '**/.git': true, '**/by-files-exclude': true }, vscode.ConfigurationTarget.Global);
    await search0.update('exclude', { '**/by-search-exclude': true }, vscode.ConfigurationTarget.Global);
    try {
      const v = json<{ files: string[]; truncated: boolean; ignoredByGitignore?: number }>(await invoke('FindFiles', { pattern: '**/*' }));
      for (const expected of ['src/found.ts', 'src/sample.ts', 'hello.txt', 'notes.md', '.gitignore']) assert.ok(v.files.includes(expected), `${expected} missing from ${v.files.join(', ')}`);
      for (const left of ['ignored/a.ts', 'build.log', 'by-files-exclude/x.ts', 'by-search-exclude/y.ts']) assert.ok(!v.files.includes(left), `${left} should be left out`);
      assert.equal(v.ignoredByGitignore, 2);
      assert.equal(v.truncated, false);
      const ts = json<{ files: string[] }>(await invoke('FindFiles', { pattern: 'src/*.ts' }));
      assert.deepEqual(ts.files, ['src/found.ts', 'src/sample.ts']);
      const capped = json<{ files: string[]; truncated: boolean }>(await invoke('FindFiles', { pattern: '**/*', maxResults: 2 }));
      assert.equal(capped.files.length, 2);
      assert.equal(capped.truncated, true);
    } finally {
      await files0.update('exclude', undefined, vscode.ConfigurationTarget.Global);
      await search0.update('exclude', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it('GetOpenEditors lists the tabs, the active one and the one with unsaved changes', async () => {
    const notes = await vscode.window.showTextDocument(vscode.Uri.file(file('notes.md')), { preview: false });
    await notes.edit((e) => e.insert(new vscode.Position(0, 0), 'unsaved '));
    await vscode.window.showTextDocument(vscode.Uri.file(file('hello.txt')), { preview: false });
    try {
      const v = json<{ editors: { path?: string; active: boolean; dirty: boolean; language?: string; kind: string }[] }>(await invoke('GetOpenEditors', {}));
      const hello = v.editors.find((e) => e.path === 'hello.txt');
      const dirty = v.editors.find((e) => e.path === 'notes.md');
      assert.deepEqual([hello?.active, hello?.dirty, hello?.kind], [true, false, 'text']);
      assert.deepEqual([dirty?.active, dirty?.dirty, dirty?.language], [false, true, 'markdown']);
    } finally {
      await vscode.window.showTextDocument(notes.document);
      await vscode.commands.executeCommand('workbench.action.files.revert');
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
  });

  it('GetDiagnostics reports a problem with its severity, source and 1-based range', async () => {
    const collection = vscode.languages.createDiagnosticCollection('catalog-test');
    const diagnostic = new vscode.Diagnostic(new vscode.Range(1, 2, 1, 8), 'Broken on purpose', vscode.DiagnosticSeverity.Error);
    diagnostic.source = 'catalog-test';
    collection.set(vscode.Uri.file(file('src/sample.ts')), [diagnostic]);
    try {
      const v = json<{ diagnostics: Record<string, unknown>[] }>(await invoke('GetDiagnostics', { path: 'src/sample.ts' }));
      assert.deepEqual(v.diagnostics, [{
        path: 'src/sample.ts', severity: 'error', message: 'Broken on purpose', source: 'catalog-test',
        range: { startLine: 2, startColumn: 3, endLine: 2, endColumn: 9 },
      }]);
      const all = json<{ diagnostics: { message: string }[] }>(await invoke('GetDiagnostics', { minSeverity: 'error' }));
      assert.ok(all.diagnostics.some((d) => d.message === 'Broken on purpose'));
    } finally {
      collection.dispose();
    }
  });

  describe('OpenDiff', () => {
    const target = 'src/diffme.ts';
    beforeEach(() => fs.writeFileSync(file(target), 'export const value = 1;\n'));

    it('the user edits the proposal and accepts it: the file gets the final text, saved, and the diff closes', async () => {
      const id = send('OpenDiff', { path: target, newContent: 'export const value = 2;\n' });
      const tab = await until('the diff editor', () => diffTabs()[0]);
      const input = tab.input as vscode.TabInputTextDiff;
      assert.equal(input.original.fsPath, file(target));
      const proposed = await vscode.workspace.openTextDocument(input.modified);
      assert.equal(proposed.getText(), 'export const value = 2;\n');
      const edit = new vscode.WorkspaceEdit();
      edit.insert(input.modified, new vscode.Position(1, 0), '// reviewed\n');
      assert.ok(await vscode.workspace.applyEdit(edit));
      assert.equal(await vscode.commands.executeCommand('clientTools.acceptDiff'), true);
      const v = json(await response(id));
      assert.deepEqual(v, {
        path: target,
        decision: 'accepted',
        // The proposal's one hunk is kept as proposed; the line the user added is their own edit.
        hunks: [{ hunk: 1, lines: '@@ -1 +1 @@', decision: 'kept' }],
        keptHunks: [1],
        rejectedHunks: [],
        content: 'export const value = 2;\n// reviewed\n',
        editedByUser: true,
        userEdits: '@@ -1,0 +2 @@\n export const value = 2;\n+// reviewed',
      });
      assert.equal(fs.readFileSync(file(target), 'utf8'), 'export const value = 2;\n// reviewed\n');
      assert.equal(vscode.workspace.textDocuments.find((d) => d.uri.fsPath === file(target))?.isDirty ?? false, false);
      await until('the diff closed', () => diffTabs().length === 0);
    });

    it('Reject leaves the file as it was', async () => {
      const id = send('OpenDiff', { path: target, newContent: 'export const value = 99;\n' });
      await until('the diff editor', () => diffTabs()[0]);
      assert.equal(await vscode.commands.executeCommand('clientTools.rejectDiff'), true);
      assert.deepEqual(json(await response(id)), { path: target, decision: 'rejected' });
      assert.equal(fs.readFileSync(file(target), 'utf8'), 'export const value = 1;\n');
      await until('the diff closed', () => diffTabs().length === 0);
    });

    it('two proposals for one file open one after the other, and closing a diff rejects it', async () => {
      const proposals = ['export const value = 10;\n', 'export const value = 20;\n'];
      const ids = proposals.map((newContent) => send('OpenDiff', { path: target, newContent }));
      const tab = await until('the first diff', () => diffTabs()[0]);
      await new Promise((r) => setTimeout(r, 700));
      assert.equal(diffTabs().length, 1, 'the second diff waits');
      // Each call is prepared (path checks, stat) before it joins the file's queue, so two calls sent
      // together may open in either order; what is promised is one at a time.
      const firstUri = (tab.input as vscode.TabInputTextDiff).modified;
      const firstText = (await vscode.workspace.openTextDocument(firstUri)).getText();
      const firstIndex = proposals.indexOf(firstText);
      assert.notEqual(firstIndex, -1, `the first diff shows ${JSON.stringify(firstText)}`);
      const [first, second] = firstIndex === 0 ? ids : [ids[1], ids[0]];
      assert.equal(await vscode.commands.executeCommand('clientTools.acceptDiff', firstUri), true);
      assert.equal(json(await response(first)).decision, 'accepted');
      // By URI, not by Tab object: the first diff's tab may still be closing, under another object.
      const next = await until('the second diff', () => diffTabs().find((t) => (t.input as vscode.TabInputTextDiff).modified.toString() !== firstUri.toString()));
      const secondProposal = await vscode.workspace.openTextDocument((next.input as vscode.TabInputTextDiff).modified);
      assert.equal(secondProposal.getText(), proposals[1 - firstIndex]);
      await vscode.window.tabGroups.close(next);
      assert.equal(json(await response(second)).decision, 'rejected');
      assert.equal(fs.readFileSync(file(target), 'utf8'), firstText);
    });

    it('a clientToolCancel closes the review: the diff editor goes, the call answers CANCELLED, the file stays as it was', async () => {
      const id = send('OpenDiff', { path: target, newContent: 'export const value = 42;\n' });
      await until('the diff editor', () => diffTabs()[0]);
      backend.send({ type: 'clientToolCancel', requestId: id, reason: 'the run was cancelled' });
      const answer = await response(id);
      assert.deepEqual([answer.success, answer.errorCode], [false, 'CANCELLED']);
      await until('the diff closed', () => diffTabs().length === 0);
      assert.equal(fs.readFileSync(file(target), 'utf8'), 'export const value = 1;\n');
    });

    it('a new file opens as a new file (a plain editor on the proposal, not a diff against an empty line) and is created when accepted', async () => {
      const id = send('OpenDiff', { path: 'src/brand-new.ts', newContent: 'export {};\n' });
      const proposalTab = () => vscode.window.tabGroups.all.flatMap((g) => g.tabs)
        .find((t) => t.input instanceof vscode.TabInputText && t.input.uri.scheme === DIFF_SCHEME && t.input.uri.path === '/src/brand-new.ts');
      await until('the proposal in its own editor', proposalTab);
      assert.equal(diffTabs().length, 0, 'the new file opened as a diff');
      await vscode.commands.executeCommand('clientTools.acceptDiff');
      const v = json(await response(id));
      assert.equal(v.decision, 'accepted');
      assert.equal(v.newFile, true);
      await until('the proposal\'s editor closed', () => proposalTab() === undefined);
      assert.equal(fs.readFileSync(file('src/brand-new.ts'), 'utf8'), 'export {};\n');
    });

    it('a proposal is named by its workspace path; files of one name and later reviews of a file never share a document', async () => {
      fs.mkdirSync(file('other'), { recursive: true });
      fs.writeFileSync(file('src/twin.txt'), 'src twin\n');
      fs.writeFileSync(file('other/twin.txt'), 'other twin\n');
      try {
        const inSrc = send('OpenDiff', { path: 'src/twin.txt', newContent: 'src proposal\n' });
        const inOther = send('OpenDiff', { path: 'other/twin.txt', newContent: 'other proposal\n' });
        await until('both diffs', () => diffTabs().length === 2);
        const proposal = (rel: string) => {
          const tab = diffTabs().find((t) => (t.input as vscode.TabInputTextDiff).original.fsPath === file(rel));
          assert.ok(tab, `no diff for ${rel}`);
          return (tab.input as vscode.TabInputTextDiff).modified;
        };
        const srcUri = proposal('src/twin.txt');
        const otherUri = proposal('other/twin.txt');
        // The path is what the breadcrumb shows: the file's workspace path and nothing else.
        assert.equal(srcUri.path, '/src/twin.txt');
        assert.equal(otherUri.path, '/other/twin.txt');
        assert.notEqual(srcUri.authority, otherUri.authority);
        assert.equal((await vscode.workspace.openTextDocument(srcUri)).getText(), 'src proposal\n');
        assert.equal((await vscode.workspace.openTextDocument(otherUri)).getText(), 'other proposal\n');

        // The user edits the first proposal and rejects it; the next review of that file shows its own proposal.
        const edit = new vscode.WorkspaceEdit();
        edit.insert(srcUri, new vscode.Position(0, 0), 'edited, then rejected\n');
        assert.ok(await vscode.workspace.applyEdit(edit));
        assert.equal(await vscode.commands.executeCommand('clientTools.rejectDiff', srcUri), true);
        assert.equal(json(await response(inSrc)).decision, 'rejected');
        const again = send('OpenDiff', { path: 'src/twin.txt', newContent: 'second proposal\n' });
        const againUri = await until('the second review of src/twin.txt', () => diffTabs().length === 2 && proposal('src/twin.txt'));
        assert.equal(againUri.path, '/src/twin.txt');
        assert.notEqual(againUri.toString(), srcUri.toString());
        assert.equal((await vscode.workspace.openTextDocument(againUri)).getText(), 'second proposal\n');
        assert.equal(await vscode.commands.executeCommand('clientTools.acceptDiff', againUri), true);
        assert.deepEqual(json(await response(again)), {
          path: 'src/twin.txt',
          decision: 'accepted',
          hunks: [{ hunk: 1, lines: '@@ -1 +1 @@', decision: 'kept' }],
          keptHunks: [1],
          rejectedHunks: [],
          content: 'second proposal\n',
          editedByUser: false,
        });
        assert.equal(await vscode.commands.executeCommand('clientTools.rejectDiff', otherUri), true);
        assert.equal(json(await response(inOther)).decision, 'rejected');
        assert.equal(fs.readFileSync(file('other/twin.txt'), 'utf8'), 'other twin\n');
      } finally {
        fs.rmSync(file('other'), { recursive: true, force: true });
        fs.rmSync(file('src/twin.txt'), { force: true });
      }
    });

    it('declares Accept and Reject in the diff editor title bar', () => {
      const pkg = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as { contributes: { menus: Record<string, { command: string; when: string }[]> } };
      const title = pkg.contributes.menus['editor/title'];
      assert.deepEqual(title.map((m) => m.command), ['clientTools.acceptDiff', 'clientTools.rejectDiff']);
      for (const m of title) assert.match(m.when, /client-tools-diff/);
    });
  });

  it('SaveDocument says when there is nothing to save, without asking', async () => {
    fs.writeFileSync(file('save-me.txt'), 'on disk\n');
    await vscode.window.showTextDocument(vscode.Uri.file(file('save-me.txt')));
    assert.equal(json(await invoke('SaveDocument', { path: 'save-me.txt' })).status, 'notDirty');
  });

  it('CloseTab closes the tabs of a file', async () => {
    await vscode.window.showTextDocument(vscode.Uri.file(file('notes.md')), { preview: false });
    const showsNotes = () => vscode.window.tabGroups.all.flatMap((g) => g.tabs).some((t) => t.input instanceof vscode.TabInputText && t.input.uri.fsPath === file('notes.md'));
    assert.equal(showsNotes(), true);
    const v = json(await invoke('CloseTab', { path: 'notes.md' }));
    assert.equal(v.closed, 1);
    assert.equal(showsNotes(), false);
  });

  it('the host applies range edits as one step that Undo reverts', async () => {
    fs.writeFileSync(file('undo-me.txt'), 'alpha beta\ngamma\n');
    const editor = await vscode.window.showTextDocument(vscode.Uri.file(file('undo-me.txt')));
    await applyEdits(file('undo-me.txt'), [
      { range: { startLine: 0, startCharacter: 0, endLine: 0, endCharacter: 5 }, newText: 'ALPHA' },
      { range: { startLine: 1, startCharacter: 0, endLine: 1, endCharacter: 5 }, newText: 'GAMMA' },
    ]);
    assert.equal(editor.document.getText(), 'ALPHA beta\nGAMMA\n');
    await vscode.commands.executeCommand('undo');
    assert.equal(editor.document.getText(), 'alpha beta\ngamma\n');
    await vscode.commands.executeCommand('workbench.action.files.revert');
  });

  describe('the host command runner', () => {
    const runner = new TerminalRunner();
    const never = new AbortController().signal;
    after(() => runner.dispose());
    const terminalNamed = (prefix: string) => vscode.window.terminals.find((t) => t.name.startsWith(`Client Tools: ${prefix}`));

    it('runs exactly the approved command in a terminal of its own: exit code and output from the process', async () => {
      const r = await runner.run({ command: 'echo catalog-$((40+2)); (exit 3)', cwd: workspace, timeoutMs: 20_000, maxOutputChars: 10_000 }, never);
      assert.deepEqual([r.via, r.exitCode, r.output, r.timedOut], ['terminal', 3, 'catalog-42\n', false]);
      assert.ok(terminalNamed('echo catalog-'), `no terminal among ${vscode.window.terminals.map((t) => t.name).join(', ')}`);
    });

    it('stops a command at the time limit', async () => {
      const started = Date.now();
      const r = await runner.run({ command: 'sleep 30', cwd: workspace, timeoutMs: 1500, maxOutputChars: 10_000 }, never);
      assert.equal(r.timedOut, true);
      assert.equal(r.exitCode, undefined);
      assert.ok(Date.now() - started < 15_000);
    });

    it('runs a multi-line command in the given folder', async () => {
      const r = await runner.run({ command: 'pwd\necho second line', cwd: file('src'), timeoutMs: 10_000, maxOutputChars: 10_000 }, never);
      assert.deepEqual([r.via, r.exitCode, r.output], ['terminal', 0, `${fs.realpathSync(file('src'))}\nsecond line\n`]);
    });

    it('Ctrl+C in its terminal stops the command, and so does closing the terminal', async () => {
      const run = (command: string) => runner.run({ command, cwd: workspace, timeoutMs: 60_000, maxOutputChars: 10_000 }, never);
      const first = run('echo waiting-for-ctrl-c; sleep 30');
      const t1 = await until('its terminal', () => terminalNamed('echo waiting-for-ctrl-c'));
      t1.sendText('\u0003', false);
      const r1 = await first;
      assert.deepEqual([r1.exitCode, r1.timedOut, r1.stopped, r1.output], [undefined, false, true, 'waiting-for-ctrl-c\n']);
      const second = run('sleep 31');
      const t2 = await until('its terminal', () => terminalNamed('sleep 31'));
      t2.dispose();
      const r2 = await second;
      assert.deepEqual([r2.exitCode, r2.timedOut, r2.stopped], [undefined, false, true]);
    });

    it('Ctrl+C is an interrupt (SIGINT): a command that traps it finishes its own way, and the result says it was stopped', async () => {
      const pending = runner.run({ command: "trap 'echo got-INT; exit 2' INT; echo ready-for-int; while true; do sleep 0.1; done", cwd: workspace, timeoutMs: 60_000, maxOutputChars: 10_000 }, never);
      const t = await until('its terminal', () => terminalNamed('trap '));
      await new Promise((r) => setTimeout(r, 500)); // the trap is set once ready-for-int is printed
      t.sendText('\u0003', false);
      const r = await pending;
      assert.deepEqual([r.exitCode, r.stopped, r.timedOut], [2, true, false]);
      assert.match(r.output, /ready-for-int\n[\s\S]*got-INT/);
    });

    it('a background job does not hold the call: the shell\'s exit ends it, and closing the terminal hangs the job up', async () => {
      const started = Date.now();
      const r = await runner.run({ command: 'sleep 40 & echo $!', cwd: workspace, timeoutMs: 30_000, maxOutputChars: 10_000 }, never);
      assert.equal(r.exitCode, 0);
      assert.equal(r.timedOut, false);
      assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
      const pid = Number(r.output.trim());
      assert.ok(pid > 0, r.output);
      const alive = () => {
        try {
          process.kill(pid, 0);
          return true;
        } catch {
          return false;
        }
      };
      assert.equal(alive(), true, 'the background job should run on, as in a terminal');
      terminalNamed('sleep 40')?.dispose();
      await until('the background job to end', () => !alive());
    });

    it('a command that reads input gets end-of-file at once instead of waiting for the time limit', async () => {
      const started = Date.now();
      const r = await runner.run({ command: 'read answer || echo no-input', cwd: workspace, timeoutMs: 20_000, maxOutputChars: 10_000 }, never);
      assert.deepEqual([r.exitCode, r.output, r.timedOut], [0, 'no-input\n', false]);
      assert.ok(Date.now() - started < 10_000);
    });

    it('a cancelled call stops its command', async () => {
      const abort = new AbortController();
      const pending = runner.run({ command: 'sleep 32', cwd: workspace, timeoutMs: 60_000, maxOutputChars: 10_000 }, abort.signal);
      await until('its terminal', () => terminalNamed('sleep 32'));
      abort.abort();
      const r = await pending;
      assert.deepEqual([r.exitCode, r.timedOut, r.stopped], [undefined, false, true]);
    });
  });

  it('VSCodeTools offers an extension\'s language-model tool once enabled, and removes it when disabled', async () => {
    const config = vscode.workspace.getConfiguration('clientTools');
    const mark = backend.received.length;
    await config.update('vscodeTools.enabled', ['clientToolsFixture_echo'], vscode.ConfigurationTarget.Global);
    try {
      const group = await until('VSCodeTools announced', () => groupsAnnounced(backend.received, mark).find((g) => g.name === 'VSCodeTools'));
      assert.deepEqual(group.tools.map((t) => [t.name, t.requiresPermission]), [['clientToolsFixture_echo', false]]);
      assert.deepEqual((group.tools[0].parameters as { required?: string[] }).required, ['text']);
      const res = await invoke('clientToolsFixture_echo', { text: 'hi' });
      assert.equal(res.success, true, res.errorMessage);
      assert.deepEqual(res.content, [{ type: 'text', text: 'echo: hi' }]);
      assert.equal((await invoke('clientToolsFixture_echo', {})).errorCode, 'INVALID_ARGUMENTS');
    } finally {
      const off = backend.received.length;
      await config.update('vscodeTools.enabled', undefined, vscode.ConfigurationTarget.Global);
      await until('VSCodeTools removed', () => backend.received.slice(off).some((m) => m.type === 'updateToolGroups' && m.augmentation.removeGroups?.includes('VSCodeTools')));
    }
    assert.equal((await invoke('clientToolsFixture_echo', { text: 'hi' })).errorCode, 'UNKNOWN_TOOL');
  });

  it('pushes the active file, cursor and selection as context when enabled, and says when it stops', async () => {
    const config = vscode.workspace.getConfiguration('clientTools');
    const mark = backend.received.length;
    const contexts = () =>
      backend.received.slice(mark).flatMap((m) => (m.type === 'updateToolGroups' ? (m.augmentation.addContext ?? []) : [])).filter((c) => c.name === 'editor');
    await config.update('editorContext.enabled', true, vscode.ConfigurationTarget.Global);
    try {
      const editor = await vscode.window.showTextDocument(vscode.Uri.file(file('src/sample.ts')));
      editor.selection = new vscode.Selection(0, 0, 0, editor.document.lineAt(0).text.length);
      const pushed = await until('the editor context', () => contexts().find((c) => c.text.includes('export interface Greeting {')));
      assert.match(pushed.text, /^Active editor: src\/sample\.ts \(typescript, \d+ lines\)\nCursor: line 1, column \d+\nSelection: line 1, column 1 to line 1, column \d+\nSelected text:\nexport interface Greeting \{$/);
    } finally {
      await config.update('editorContext.enabled', undefined, vscode.ConfigurationTarget.Global);
    }
    await until('the "off" note', () => contexts().some((c) => c.text === 'Editor context sharing is off.'));
  });

  describe('API for other extensions', () => {
    it('a group registered by another extension reaches the backend and runs with validation', async () => {
      const fixture = await until('the Fixture group announced', () => groupsAnnounced(backend.received).find((g) => g.name === 'Fixture'));
      assert.deepEqual(fixture.tools.map((t) => [t.name, t.requiresPermission]), [['FixtureAdd', false], ['FixtureConfirm', true]]);
      assert.deepEqual(json(await invoke('FixtureAdd', { a: 2, b: 3 })), { sum: 5 });
      const bad = await invoke('FixtureAdd', { a: '2', b: 3 });
      assert.equal(bad.errorCode, 'INVALID_ARGUMENTS');
      assert.match(bad.errorMessage ?? '', /^a: /);
      assert.ok(api.toolGroups().some((g) => g.name === 'Fixture'), 'shown in the Tool Groups view');
    });

    it('refuses a malformed definition at once', () => {
      const tool = { name: 'Broken', group: 'Broken', description: '', parameters: { type: 'object' }, requiresPermission: 'no', declineStrategy: 'reject', run: async () => ({ content: [] }) };
      assert.throws(() => api.registerToolGroup({ name: 'Broken', description: 'x' }, [tool as never]), /requiresPermission: must be true or false/);
      assert.throws(() => api.registerToolGroup({ name: 'IDE', description: 'x' }, []), /registered already/);
    });

    it('disposing the registration removes the group and tells the backend', async () => {
      const mark = backend.received.length;
      await vscode.commands.executeCommand('clientToolsFixture.unregister');
      await until('removeGroups Fixture', () => backend.received.slice(mark).some((m) => m.type === 'updateToolGroups' && m.augmentation.removeGroups?.includes('Fixture')));
      assert.equal((await invoke('FixtureAdd', { a: 1, b: 1 })).errorCode, 'UNKNOWN_TOOL');
      const again = backend.received.length;
      await vscode.commands.executeCommand('clientToolsFixture.register');
      await until('Fixture injected again', () => groupsAnnounced(backend.received, again).some((g) => g.name === 'Fixture'));
    });
  });

  // Mocha runs a suite's own tests before its nested suites: this one is declared last and nested, so it runs last.
  describe('permission prompts (modal dialogs stay open, so these run last)', () => {
    it('an API tool that requires permission asks first; a cancelled call does not run', async () => {
      const id = send('FixtureConfirm', {});
      await backend.first('clientToolProgress', (m) => m.requestId === id && m.status === 'awaiting-permission');
      backend.send({ type: 'clientToolCancel', requestId: id, reason: 'test' });
      const res = await response(id);
      assert.equal(res.errorCode, 'CANCELLED');
      // Nothing of the tool's: the only content is the cancellation sentence (issue 14: failures carry it as text).
      assert.deepEqual(res.content, [{ type: 'text', text: res.errorMessage }]);
    });

    it('ApplyEdit asks first; a call cancelled while the user is asked changes nothing', async () => {
      const before = fs.readFileSync(file('src/sample.ts'), 'utf8');
      const id = send('ApplyEdit', { path: 'src/sample.ts', edits: [{ startLine: 1, startColumn: 1, endLine: 1, endColumn: 1, newText: '// injected\n' }] });
      await backend.first('clientToolProgress', (m) => m.requestId === id && m.status === 'awaiting-permission');
      backend.send({ type: 'clientToolCancel', requestId: id, reason: 'test' });
      assert.equal((await response(id)).errorCode, 'CANCELLED');
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(fs.readFileSync(file('src/sample.ts'), 'utf8'), before);
      assert.equal(vscode.workspace.textDocuments.find((d) => d.uri.fsPath === file('src/sample.ts'))?.isDirty ?? false, false);
    });

    it('SaveDocument of a buffer with the user\'s unsaved edits asks first; a call cancelled while the user is asked saves nothing', async () => {
      const editor = await vscode.window.showTextDocument(vscode.Uri.file(file('save-me.txt')));
      await editor.edit((e) => e.insert(new vscode.Position(1, 0), 'typed\n'));
      const id = send('SaveDocument', { path: 'save-me.txt' });
      await backend.first('clientToolProgress', (m) => m.requestId === id && m.status === 'awaiting-permission');
      backend.send({ type: 'clientToolCancel', requestId: id, reason: 'test' });
      assert.equal((await response(id)).errorCode, 'CANCELLED');
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(fs.readFileSync(file('save-me.txt'), 'utf8'), 'on disk\n');
      assert.equal(editor.document.isDirty, true, 'the user\'s edit is still there, unsaved');
      assert.equal(editor.document.getText(), 'on disk\ntyped\n');
    });

    it('RunInTerminal asks with the exact command; a call cancelled while the user is asked runs nothing', async () => {
      const terminals = vscode.window.terminals.length;
      const id = send('RunInTerminal', { command: 'touch ran-by-agent.txt' });
      await backend.first('clientToolProgress', (m) => m.requestId === id && m.status === 'awaiting-permission');
      backend.send({ type: 'clientToolCancel', requestId: id, reason: 'test' });
      assert.equal((await response(id)).errorCode, 'CANCELLED');
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(fs.existsSync(file('ran-by-agent.txt')), false);
      assert.equal(vscode.window.terminals.length, terminals);
    });
  });
});
