/**
 * The Language group under a rogue backend and a language server that answers with what the model
 * must not get or change: results and edits in files outside the workspace (directly, through a
 * link, or as another scheme), edits to protected files, a file swapped during the review, and
 * edits that overlap. Nothing outside the workspace is read or written, protected files are shown
 * only after a prompt naming them, and a change is written only as the user reviewed it.
 */
import * as assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { TextEditSpec } from '../../src/core/host';
import { ErrorCode, type ClientToolInvokeResponse } from '../../src/protocol';
import { languageToolGroup } from '../../src/tools/language/group';
import { at } from '../support/fake-language';
import { assertNoLeak, assertRefused, CoreRig } from './support/core-rig';

const edit = (line: number, character: number, length: number, newText: string): TextEditSpec => ({ range: { startLine: line, startCharacter: character, endLine: line, endCharacter: character + length }, newText });

function json<T = Record<string, unknown>>(r: ClientToolInvokeResponse): T {
  assert.equal(r.success, true, `${r.errorCode}: ${r.errorMessage}`);
  const item = r.content[0];
  assert.ok(item && item.type === 'json');
  return item.value as T;
}

describe('rogue backend and language server: the Language group', () => {
  let rig: CoreRig;
  let sockets: number;
  const rename = { path: 'src/a.ts', line: 1, column: 14, newName: 'b' };
  const ownEdit = () => ({ path: rig.file('src/a.ts'), uri: '', edits: [edit(0, 13, 1, 'b')] });

  beforeEach(async () => {
    rig = await CoreRig.start({ files: { '.vscode/tasks.json': '{ "a": 1 }\n' } });
    const language = languageToolGroup();
    rig.core.registry.register(language.group, language.tools);
    await rig.connect();
    sockets = rig.backend.sockets.length;
  });
  afterEach(() => rig.dispose());

  it('T-LANG-01 a rename that touches a protected file is asked about first, naming it; denied, nothing is reviewed or written', async () => {
    rig.host.language.rename = () => ({ files: [ownEdit(), { path: rig.file('.vscode/tasks.json'), uri: '', edits: [edit(0, 3, 1, 'b')] }], fileOperations: 0 });
    rig.host.answerPrompts('deny');
    assertRefused(await rig.backend.call('RenameSymbol', rename), ErrorCode.PermissionDenied);
    assert.equal(rig.host.prompts.length, 1);
    assert.match(rig.host.prompts[0].message, /protected file.*\.vscode\/tasks\.json/);
    assert.equal(rig.host.language.reviews.length, 0, 'the change was shown before the user agreed');
    assert.equal(await readFile(rig.file('.vscode/tasks.json'), 'utf8'), '{ "a": 1 }\n');

    rig.host.answerPrompts('allow');
    const id = rig.backend.invoke('RenameSymbol', rename);
    const review = await rig.host.language.nextReview();
    assert.deepEqual(review.request.files.map((f) => f.relative), ['src/a.ts', '.vscode/tasks.json']);
    review.reject();
    json(await rig.answer(id));
    assert.equal(rig.host.language.writes.length, 0);
    await rig.assertHealthy(sockets);
  });

  it('T-LANG-02 a change that reaches outside the workspace (a path, a link out, another scheme) is refused whole, before any review', async () => {
    const outside = [
      { path: path.join(rig.root, 'outside', 'secret.txt'), uri: '', edits: [edit(0, 0, 3, 'PWNED')] },
      { path: rig.file('secret-link'), uri: '', edits: [edit(0, 0, 3, 'PWNED')] },
      { path: rig.file('out-dir/secret.txt'), uri: '', edits: [edit(0, 0, 3, 'PWNED')] },
    ];
    rig.host.answerPrompts('allow');
    for (const target of outside) {
      rig.host.language.rename = () => ({ files: [ownEdit(), target], fileOperations: 0 });
      assertRefused(await rig.backend.call('RenameSymbol', rename), ErrorCode.PathOutsideWorkspace);
    }
    rig.host.language.rename = () => ({ files: [ownEdit(), { uri: 'vscode-vfs://github/evil/x.ts', edits: [edit(0, 0, 0, 'x')] }], fileOperations: 0 });
    assertRefused(await rig.backend.call('RenameSymbol', rename), ErrorCode.PathInvalid);
    rig.host.language.actions = [{ title: 'Fix', runsCommand: false, change: { files: [outside[0]], fileOperations: 0 } }];
    assertRefused(await rig.backend.call('ApplyCodeAction', { path: 'src/a.ts', startLine: 1, title: 'Fix' }), ErrorCode.PathOutsideWorkspace);
    assert.equal(rig.host.language.reviews.length, 0);
    assert.equal(rig.host.language.writes.length, 0);
    assert.equal(await readFile(rig.file('src/a.ts'), 'utf8'), 'export const a = 1;\n', 'part of a refused change was written');
    await rig.assertSecretsIntact();
    await rig.assertHealthy(sockets);
  });

  it('T-LANG-03 a result outside the workspace, through a link out, or in a protected file comes back as a location without its text', async () => {
    rig.host.language.locationsOf = () => [
      at(path.join(rig.root, 'outside', 'secret.txt'), 0, 0),
      at(rig.file('secret-link'), 0, 0),
      at(rig.file('out-dir/secret.txt'), 0, 0),
      at(rig.file('innocent.txt'), 0, 4),
      at(rig.file('.env'), 0, 4),
      at(rig.file('src/a.ts'), 0, 13),
    ];
    const r = await rig.backend.call('FindReferences', { path: 'src/a.ts', line: 1, column: 14 });
    assertNoLeak(r);
    const v = json<{ locations: { location: string; text?: string; outsideWorkspace?: true; protected?: true }[] }>(r);
    assert.deepEqual(v.locations.filter((l) => l.text !== undefined).map((l) => l.location), ['src/a.ts:1:14']);
    assert.equal(v.locations.filter((l) => l.outsideWorkspace).length, 3);
    assert.equal(v.locations.filter((l) => l.protected).length, 2);
    assert.equal(rig.host.prompts.length, 0);

    // Asked for the outside text, the user is asked and says no: still nothing of the secret.
    rig.host.answerPrompts('deny');
    const denied = await rig.backend.call('FindReferences', { path: 'src/a.ts', line: 1, column: 14, includeOutsideText: true });
    assertRefused(denied, ErrorCode.PermissionDenied);
    assert.match(rig.host.prompts[0].detail ?? '', /outside[/\\]secret\.txt/);
    await rig.assertHealthy(sockets);
  });

  it('T-LANG-04 a symbol asked for by name is taken only from files inside the workspace', async () => {
    rig.host.language.workspaceSymbolList = [
      { name: 'a', kind: 'Variable', location: at(path.join(rig.root, 'outside', 'secret.txt'), 0, 0) },
      { name: 'a', kind: 'Variable', location: at(rig.file('innocent.txt'), 0, 0) },
    ];
    assertRefused(await rig.backend.call('GetHover', { symbol: 'a' }), ErrorCode.NotFound);
    assert.deepEqual(rig.host.language.asked.map((q) => q.op), ['workspaceSymbols'], 'the server was asked about a file outside the workspace');
  });

  it('T-LANG-05 a file swapped for a link during the review is not written through, and no file of the change is written', async () => {
    rig.host.language.rename = () => ({ files: [ownEdit(), { path: rig.file('notes.txt'), uri: '', edits: [edit(0, 0, 5, 'b')] }], fileOperations: 0 });
    const id = rig.backend.invoke('RenameSymbol', rename);
    const review = await rig.host.language.nextReview();
    const { rename: move, symlink } = await import('node:fs/promises');
    await move(rig.file('notes.txt'), rig.file('notes.moved'));
    await symlink(path.join(rig.root, 'outside', 'secret.txt'), rig.file('notes.txt'));
    review.accept();
    assertRefused(await rig.answer(id), ErrorCode.TargetChanged);
    assert.equal(rig.host.language.writes.length, 0);
    assert.equal(await readFile(rig.file('src/a.ts'), 'utf8'), 'export const a = 1;\n');
    await rig.assertSecretsIntact();
  });

  it('T-LANG-06 overlapping edits or edits past the end of a file are refused before any review', async () => {
    rig.host.language.rename = () => ({ files: [{ path: rig.file('src/a.ts'), uri: '', edits: [edit(0, 0, 10, 'x'), edit(0, 5, 10, 'y')] }], fileOperations: 0 });
    assertRefused(await rig.backend.call('RenameSymbol', rename), ErrorCode.ToolFailed);
    rig.host.language.rename = () => ({ files: [{ path: rig.file('src/a.ts'), uri: '', edits: [edit(40, 0, 1, 'x')] }], fileOperations: 0 });
    assertRefused(await rig.backend.call('RenameSymbol', rename), ErrorCode.ToolFailed);
    assert.equal(rig.host.language.reviews.length, 0);
    assert.equal(rig.host.language.writes.length, 0);
    await rig.assertHealthy(sockets);
  });
});
