import * as assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import type { TextEditSpec } from '../../../../src/core/host';
import { ErrorCode, type ClientToolInvokeResponse } from '../../../../src/protocol';
import { LANGUAGE_GROUP, LANGUAGE_TOOLS } from '../../../../src/tools/language/group';
import { applyTextEdits } from '../../../../src/tools/language/workspaceChange';
import { DispatchHarness } from '../../../support/dispatch-harness';
import { createTempWorkspace, type TempWorkspace } from '../../../support/fake-host';

function json<T = Record<string, unknown>>(r: ClientToolInvokeResponse): T {
  assert.equal(r.success, true, `${r.errorCode}: ${r.errorMessage}`);
  const item = r.content[0];
  assert.ok(item && item.type === 'json');
  return item.value as T;
}

const edit = (line: number, character: number, length: number, newText: string): TextEditSpec => ({ range: { startLine: line, startCharacter: character, endLine: line, endCharacter: character + length }, newText });

const SAMPLE = 'export function greet(name: string): string {\n  return name;\n}\n';
const MAIN = "import { greet } from './sample';\n\nconst a = greet('a');\n\nconst b = greet('b');\n";

interface Decided {
  decision: string;
  files?: { path: string; decision: string; keptHunks: number[]; rejectedHunks: number[] }[];
  reason?: string;
  note?: string;
}

describe('Language group: reviewed changes (RenameSymbol, ApplyCodeAction)', () => {
  let ws: TempWorkspace;
  let h: DispatchHarness;

  beforeEach(async () => {
    ws = await createTempWorkspace(['ws'], { 'src/sample.ts': SAMPLE, 'src/main.ts': MAIN, '.vscode/settings.json': '{ "greet": 1 }\n' });
    ws.host.language.rename = (_p, _pos, newName) => ({
      files: [
        { path: ws.file('src/sample.ts'), uri: '', edits: [edit(0, 16, 5, newName)] },
        { path: ws.file('src/main.ts'), uri: '', edits: [edit(0, 9, 5, newName), edit(2, 10, 5, newName), edit(4, 10, 5, newName)] },
      ],
      fileOperations: 0,
    });
    h = new DispatchHarness({ host: ws.host, group: LANGUAGE_GROUP, tools: LANGUAGE_TOOLS });
  });
  afterEach(async () => {
    h.dispose();
    await ws.dispose();
  });

  it('a rename across two files is one review; one hunk rejected writes the rest with one edit and says which hunks of which file were kept', async () => {
    const id = h.invoke('RenameSymbol', { path: 'src/sample.ts', line: 1, column: 17, newName: 'salute' });
    const review = await ws.host.language.nextReview();
    assert.deepEqual(review.request.files.map((f) => f.relative), ['src/sample.ts', 'src/main.ts']);
    assert.equal(review.request.files[1].proposed, MAIN.replaceAll('greet', 'salute'));
    assert.equal(ws.host.language.writes.length, 0, 'written before the user decided');
    // The user takes back the last hunk of main.ts (the call of b).
    const mainKept = MAIN.replace('greet', 'salute').replace("const a = greet('a')", "const a = salute('a')");
    review.accept([SAMPLE.replace('greet', 'salute'), mainKept], 'keep b for now');
    const v = json<Decided>(await h.response(id));
    assert.equal(v.decision, 'partial');
    assert.deepEqual(v.files?.map((f) => [f.path, f.decision, f.keptHunks, f.rejectedHunks]), [['src/sample.ts', 'accepted', [1], []], ['src/main.ts', 'partial', [1, 2], [3]]]);
    assert.equal(v.reason, 'keep b for now');
    assert.equal(ws.host.language.writes.length, 1, 'both files in one write (one undo)');
    assert.equal(await readFile(ws.file('src/main.ts'), 'utf8'), mainKept);
    assert.equal(await readFile(ws.file('src/sample.ts'), 'utf8'), SAMPLE.replace('greet', 'salute'));
  });

  it('rejected: nothing is written; accepted with every hunk of a file taken back: that file is not written', async () => {
    let id = h.invoke('RenameSymbol', { path: 'src/sample.ts', line: 1, column: 17, newName: 'salute' });
    (await ws.host.language.nextReview()).reject('no');
    assert.deepEqual(json<Decided>(await h.response(id)), { decision: 'rejected', reason: 'no' });
    assert.equal(ws.host.language.writes.length, 0);

    id = h.invoke('RenameSymbol', { path: 'src/sample.ts', line: 1, column: 17, newName: 'salute' });
    (await ws.host.language.nextReview()).accept([SAMPLE.replace('greet', 'salute'), MAIN]);
    const v = json<Decided>(await h.response(id));
    assert.equal(v.decision, 'partial');
    assert.deepEqual(ws.host.language.writes[0].map((w) => w.path), [ws.file('src/sample.ts')]);
    assert.equal(await readFile(ws.file('src/main.ts'), 'utf8'), MAIN);
  });

  it('a file changed on disk while the review is open is not overwritten: TARGET_CHANGED, and no file is written', async () => {
    const id = h.invoke('RenameSymbol', { path: 'src/sample.ts', line: 1, column: 17, newName: 'salute' });
    const review = await ws.host.language.nextReview();
    await ws.write('src/main.ts', `${MAIN}// the user typed this meanwhile\n`);
    review.accept();
    const r = await h.response(id);
    assert.equal(r.errorCode, ErrorCode.TargetChanged);
    assert.equal(ws.host.language.writes.length, 0);
    assert.equal(await readFile(ws.file('src/sample.ts'), 'utf8'), SAMPLE);
  });

  it('a change that also creates, renames or deletes files, or proposes nothing, is refused before any review', async () => {
    ws.host.language.rename = () => ({ files: [{ path: ws.file('src/sample.ts'), uri: '', edits: [edit(0, 16, 5, 'x')] }], fileOperations: 1 });
    assert.equal((await h.call('RenameSymbol', { path: 'src/sample.ts', line: 1, column: 17, newName: 'x' })).errorCode, ErrorCode.ToolFailed);
    ws.host.language.rename = () => ({ files: [], fileOperations: 0 });
    assert.equal((await h.call('RenameSymbol', { path: 'src/sample.ts', line: 1, column: 17, newName: 'x' })).errorCode, ErrorCode.NotFound);
    assert.equal(ws.host.language.reviews.length, 0);
  });

  it('GetCodeActions lists the actions; ApplyCodeAction applies one by its exact title after the review, and refuses a command-only action', async () => {
    ws.host.language.actions = [
      { title: 'Add missing import', kind: 'quickfix', isPreferred: true, runsCommand: true, change: { files: [{ path: ws.file('src/main.ts'), uri: '', edits: [edit(0, 0, 0, "import { x } from './x';\n")] }], fileOperations: 0 } },
      { title: 'Run the formatter', runsCommand: true },
    ];
    const listed = json<{ actions: unknown[] }>(await h.call('GetCodeActions', { path: 'src/main.ts', startLine: 3 }));
    assert.deepEqual(listed.actions, [
      { title: 'Add missing import', kind: 'quickfix', preferred: true, changesFiles: true, files: 1, runsCommand: true },
      { title: 'Run the formatter', changesFiles: false, runsCommand: true },
    ]);
    const id = h.invoke('ApplyCodeAction', { path: 'src/main.ts', startLine: 3, title: 'Add missing import' });
    (await ws.host.language.nextReview()).accept();
    const v = json<Decided>(await h.response(id));
    assert.equal(v.decision, 'accepted');
    assert.match(v.note ?? '', /command .* was not run/);
    assert.ok((await readFile(ws.file('src/main.ts'), 'utf8')).startsWith("import { x } from './x';\n"));
    assert.equal((await h.call('ApplyCodeAction', { path: 'src/main.ts', startLine: 3, title: 'Run the formatter' })).errorCode, ErrorCode.ToolFailed);
    const missing = await h.call('ApplyCodeAction', { path: 'src/main.ts', startLine: 3, title: 'Add import' });
    assert.equal(missing.errorCode, ErrorCode.NotFound);
    assert.match(missing.errorMessage ?? '', /offered: "Add missing import"/);
  });

  it('applyTextEdits applies a server\'s edits from the end, keeps insertions at one place in order, and refuses overlaps and edits past the end', () => {
    assert.equal(applyTextEdits('ab\ncd\n', [edit(0, 0, 1, 'A'), edit(1, 1, 1, 'D')], 'f'), 'Ab\ncD\n');
    assert.equal(applyTextEdits('ab', [edit(0, 1, 0, 'x'), edit(0, 1, 0, 'y')], 'f'), 'axyb');
    assert.equal(applyTextEdits('a\r\nb', [edit(1, 0, 1, 'B')], 'f'), 'a\r\nB');
    assert.throws(() => applyTextEdits('abc', [edit(0, 0, 2, 'x'), edit(0, 1, 2, 'y')], 'f'), /overlap/);
    assert.throws(() => applyTextEdits('abc', [edit(3, 0, 0, 'x')], 'f'), /past its end/);
  });
});
