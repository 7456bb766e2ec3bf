import * as assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { ErrorCode, type ClientToolInvokeResponse } from '../../../../src/protocol';
import { EDITOR_GROUP, EDITOR_TOOLS } from '../../../../src/tools/editor/group';
import { toTextEdits } from '../../../../src/tools/support/textEdits';
import { DispatchHarness } from '../../../support/dispatch-harness';
import { createTempWorkspace, type TempWorkspace } from '../../../support/fake-host';

function value(r: ClientToolInvokeResponse): Record<string, unknown> {
  assert.equal(r.success, true, r.errorMessage);
  const item = r.content[0];
  assert.ok(item && item.type === 'json');
  return item.value as Record<string, unknown>;
}

const edit = (startLine: number, startColumn: number, endLine: number, endColumn: number, newText: string) => ({ startLine, startColumn, endLine, endColumn, newText });

describe('range edits', () => {
  const text = 'line one\nline two\r\nthree\n';

  it('turns 1-based edits into zero-based ranges in document order', () => {
    assert.deepEqual(toTextEdits([edit(3, 1, 3, 6, 'THREE'), edit(1, 6, 1, 9, 'ONE')], text), [
      { range: { startLine: 0, startCharacter: 5, endLine: 0, endCharacter: 8 }, newText: 'ONE' },
      { range: { startLine: 2, startCharacter: 0, endLine: 2, endCharacter: 5 }, newText: 'THREE' },
    ]);
  });

  it('accepts the column just past the end of a line and the empty last line', () => {
    assert.doesNotThrow(() => toTextEdits([edit(2, 9, 2, 9, '!'), edit(4, 1, 4, 1, 'end')], text));
  });

  it('refuses positions past a line or the document, backwards ranges and overlaps, naming the edit', () => {
    assert.throws(() => toTextEdits([edit(1, 10, 1, 10, 'x')], text), /edits\[0\]: startColumn 10 is past the end of line 1/);
    assert.throws(() => toTextEdits([edit(1, 1, 5, 1, 'x')], text), /edits\[0\]: endLine 5 is past the end of the document, which has 4 lines/);
    assert.throws(() => toTextEdits([edit(2, 3, 1, 1, 'x')], text), /edits\[0\]: the range ends/);
    assert.throws(() => toTextEdits([edit(1, 1, 1, 5, 'a'), edit(1, 3, 1, 8, 'b')], text), /edits\[1\]: overlaps edits\[0\]/);
    assert.throws(() => toTextEdits([edit(1, 1, 1, 1, 'a'), edit(1, 1, 1, 1, 'b')], text), /overlaps/);
    assert.doesNotThrow(() => toTextEdits([edit(1, 1, 1, 5, 'a'), edit(1, 5, 1, 9, 'b')], text), 'touching ranges are fine');
  });
});

describe('tool ApplyEdit', () => {
  let ws: TempWorkspace;
  let h: DispatchHarness;
  beforeEach(async () => {
    ws = await createTempWorkspace(['ws'], { 'src/a.ts': 'const a = 1;\nconst b = 2;\n', '.env': 'KEY=1\n' });
    h = new DispatchHarness({ host: ws.host, group: EDITOR_GROUP, tools: EDITOR_TOOLS });
  });
  afterEach(async () => {
    h.dispose();
    await ws.dispose();
  });

  it('asks "Apply 2 edits to src/a.ts?" with what changes, then applies them as one edit without saving', async () => {
    ws.host.answerPrompts('allow');
    const r = await h.call('ApplyEdit', { path: 'src/a.ts', edits: [edit(1, 11, 1, 12, '10'), edit(2, 1, 2, 13, '')] });
    assert.deepEqual(value(r), { path: 'src/a.ts', applied: 2, lineCount: 3, saved: false, dirty: true });
    assert.equal(ws.host.prompts[0].message, 'Apply 2 edits to src/a.ts?');
    assert.equal(ws.host.prompts[0].detail, 'Requested by the agent through the Editor tool ApplyEdit.\n\n• line 1, col 11 – line 1, col 12: replace with "10"\n• line 2, col 1 – line 2, col 13: delete');
    assert.equal(ws.host.catalog.appliedEdits.length, 1, 'one workspace edit');
    assert.equal(ws.host.catalog.documents.get(ws.file('src/a.ts'))?.text, 'const a = 10;\n\n');
    assert.equal(await readFile(ws.file('src/a.ts'), 'utf8'), 'const a = 1;\nconst b = 2;\n', 'not saved');
  });

  it('shows the whole change before consent: every edit with its complete text, newlines escaped, nothing summarised', async () => {
    ws.host.answerPrompts('allow');
    // The old prompt showed 3 edits of at most 120 characters and counted the rest.
    const long = `${'x'.repeat(200)}\nsecond line\u202E${'y'.repeat(100)}`;
    const edits = [edit(1, 1, 1, 1, long), ...Array.from({ length: 5 }, (_, i) => edit(2, i + 1, 2, i + 2, `${i}`))];
    const r = await h.call('ApplyEdit', { path: 'src/a.ts', edits });
    assert.equal(value(r).applied, 6);
    const detail = ws.host.prompts[0].detail ?? '';
    assert.ok(detail.includes(`• line 1, col 1: insert ${JSON.stringify(long).replace('\u202E', '<U+202E>')}`), 'the long text is shown whole, the bidi override spelled out');
    for (let i = 0; i < 5; i++) assert.ok(detail.includes(`• line 2, col ${i + 1} – line 2, col ${i + 2}: replace with "${i}"`), `edit ${i + 2} is shown`);
    assert.ok(!detail.includes('…') && !/more edits?/.test(detail), 'nothing is summarised');
    // Sixteen short edits fit (one row each), and all sixteen are listed.
    const sixteen = Array.from({ length: 16 }, (_, i) => edit(1, i + 1, 1, i + 1, '#'));
    assert.equal(value(await h.call('ApplyEdit', { path: 'src/a.ts', edits: sixteen })).applied, 16);
    assert.equal((ws.host.prompts[1].detail ?? '').split('\n').filter((l) => l.endsWith(': insert "#"')).length, 16);
  });

  it('refuses a change too large to show in full with CHANGE_TOO_LARGE, before asking or reading, and changes nothing', async () => {
    ws.host.answerPrompts('allow');
    const tooMany = Array.from({ length: 17 }, (_, i) => edit(1, i + 1, 1, i + 1, 'x'));
    const tooLong = [edit(1, 1, 1, 1, 'z'.repeat(800))];
    for (const edits of [tooMany, tooLong]) {
      const r = await h.call('ApplyEdit', { path: 'src/a.ts', edits, save: true });
      assert.equal(r.errorCode, ErrorCode.ChangeTooLarge, r.errorMessage);
      assert.match(r.errorMessage ?? '', /too large to show in full .* Use OpenDiff/);
    }
    assert.equal(ws.host.prompts.length, 0, 'nobody was asked');
    assert.equal(ws.host.catalog.appliedEdits.length, 0);
    assert.equal(await readFile(ws.file('src/a.ts'), 'utf8'), 'const a = 1;\nconst b = 2;\n');
  });

  it('saves afterwards when asked', async () => {
    ws.host.answerPrompts('allow');
    const v = value(await h.call('ApplyEdit', { path: 'src/a.ts', edits: [edit(1, 1, 1, 1, '// hi\n')], save: true }));
    assert.equal(v.saved, true);
    assert.equal(await readFile(ws.file('src/a.ts'), 'utf8'), '// hi\nconst a = 1;\nconst b = 2;\n');
  });

  it('edits the unsaved buffer the user sees, not the file on disk', async () => {
    await ws.host.catalog.open(ws.file('src/a.ts'), 'let x;\n');
    ws.host.answerPrompts('allow');
    const r = await h.call('ApplyEdit', { path: 'src/a.ts', edits: [edit(1, 1, 1, 4, 'const')] });
    assert.equal(r.success, true, r.errorMessage);
    assert.equal(ws.host.catalog.documents.get(ws.file('src/a.ts'))?.text, 'const x;\n');
  });

  it('deny answers PERMISSION_DENIED and changes nothing', async () => {
    ws.host.answerPrompts('deny');
    const r = await h.call('ApplyEdit', { path: 'src/a.ts', edits: [edit(1, 1, 1, 6, 'let')] });
    assert.equal(r.errorCode, ErrorCode.PermissionDenied);
    assert.equal(ws.host.catalog.appliedEdits.length, 0);
  });

  it('an edit past the end is refused before anyone is asked', async () => {
    const r = await h.call('ApplyEdit', { path: 'src/a.ts', edits: [edit(9, 1, 9, 1, 'x')] });
    assert.equal(r.errorCode, ErrorCode.InvalidArguments);
    assert.match(r.errorMessage ?? '', /edits\[0\]: startLine 9/);
    assert.equal(ws.host.prompts.length, 0);
  });

  it('"allow for this session" is offered and remembered, but never for a protected file', async () => {
    ws.host.answerPrompts('allowSession');
    await h.call('ApplyEdit', { path: 'src/a.ts', edits: [edit(1, 1, 1, 1, 'a')] });
    await h.call('ApplyEdit', { path: 'src/a.ts', edits: [edit(1, 1, 1, 1, 'b')] });
    assert.equal(ws.host.prompts.length, 1);
    ws.host.answerPrompts('deny');
    const r = await h.call('ApplyEdit', { path: '.env', edits: [edit(1, 1, 1, 1, 'X')] });
    assert.equal(r.errorCode, ErrorCode.PermissionDenied);
    assert.equal(ws.host.prompts[1].offerAllowSession, false);
    assert.match(ws.host.prompts[1].detail ?? '', /secrets/);
  });

  it('a protected file is asked about first and checked only after consent: a bad edit then gets INVALID_ARGUMENTS, a good one applies', async () => {
    ws.host.answerPrompts('allow');
    const bad = await h.call('ApplyEdit', { path: '.env', edits: [edit(7, 1, 7, 1, 'X')] });
    assert.equal(bad.errorCode, ErrorCode.InvalidArguments);
    assert.equal(ws.host.prompts.length, 1, 'asked before the edit was checked');
    assert.equal(ws.host.prompts[0].message, 'Apply 1 edit to .env?');
    const good = await h.call('ApplyEdit', { path: '.env', edits: [edit(1, 6, 1, 6, '0')], save: true });
    assert.deepEqual(value(good), { path: '.env', applied: 1, lineCount: 2, saved: true, dirty: false });
    assert.equal(await readFile(ws.file('.env'), 'utf8'), 'KEY=10\n');
  });

  it('a buffer the user changed while the prompt was open is not edited with ranges checked against the old text (TARGET_CHANGED)', async () => {
    ws.host.holdPrompts();
    const id = h.invoke('ApplyEdit', { path: 'src/a.ts', edits: [edit(2, 7, 2, 8, 'B')] });
    const prompt = await ws.host.nextPrompt();
    await ws.host.catalog.open(ws.file('src/a.ts'), 'const a = 1;\n');
    prompt.answer('allow');
    assert.equal((await h.response(id)).errorCode, ErrorCode.TargetChanged);
    assert.equal(ws.host.catalog.appliedEdits.length, 0);
    assert.equal(ws.host.messages.length, 1, 'the user is told');
    assert.equal(ws.host.messages[0].severity, 'warning');
  });

  it('a cancel while the prompt is open answers CANCELLED and edits nothing', async () => {
    ws.host.holdPrompts();
    const id = h.invoke('ApplyEdit', { path: 'src/a.ts', edits: [edit(1, 1, 1, 1, 'x')] });
    const prompt = await ws.host.nextPrompt();
    assert.equal(h.progress(id)[0]?.status, 'awaiting-permission');
    h.dispatcher.handleCancel({ type: 'clientToolCancel', requestId: id });
    assert.equal((await h.response(id)).errorCode, ErrorCode.Cancelled);
    assert.equal(await prompt.closed, 'aborted');
    assert.equal(ws.host.catalog.appliedEdits.length, 0);
  });

  it('nothing in the request skips the prompt', async () => {
    ws.host.answerPrompts('deny');
    const r = await h.call('ApplyEdit', { path: 'src/a.ts', edits: [edit(1, 1, 1, 1, 'x')], approved: true });
    assert.equal(r.errorCode, ErrorCode.InvalidArguments);
    assert.equal(ws.host.catalog.appliedEdits.length, 0);
  });

  it('is off in restricted mode', async () => {
    h.registry.setWorkspaceTrusted(false);
    assert.equal((await h.call('ApplyEdit', { path: 'src/a.ts', edits: [edit(1, 1, 1, 1, 'x')] })).errorCode, ErrorCode.WorkspaceUntrusted);
  });
});

describe('tools SaveDocument and CloseTab', () => {
  let ws: TempWorkspace;
  let h: DispatchHarness;
  beforeEach(async () => {
    ws = await createTempWorkspace(['ws'], { 'a.txt': 'disk\n', 'b.txt': 'b\n', '.env': 'K=1\n' });
    h = new DispatchHarness({ host: ws.host, group: EDITOR_GROUP, tools: EDITOR_TOOLS });
  });
  afterEach(async () => {
    h.dispose();
    await ws.dispose();
  });

  it('SaveDocument asks before saving a buffer with unsaved changes, naming the file, then saves it', async () => {
    await ws.host.catalog.open(ws.file('a.txt'), 'buffer\n');
    ws.host.answerPrompts('allow');
    assert.deepEqual(value(await h.call('SaveDocument', { path: 'a.txt' })), { path: 'a.txt', saved: true, status: 'saved', message: 'Saved.' });
    assert.equal(await readFile(ws.file('a.txt'), 'utf8'), 'buffer\n');
    assert.equal(ws.host.prompts.length, 1);
    assert.equal(ws.host.prompts[0].message, 'Save a.txt, which has unsaved changes?');
    assert.match(ws.host.prompts[0].detail ?? '', /a\.txt has unsaved changes in the editor, which may be your own edits/);
    assert.equal(ws.host.prompts[0].offerAllowSession, false, 'a remembered grant never saves someone\'s edits unasked');
  });

  it('SaveDocument denied leaves the user\'s unsaved edits unsaved and the file on disk as it was', async () => {
    await ws.host.catalog.open(ws.file('a.txt'), 'half-typed user edit');
    ws.host.answerPrompts('deny');
    assert.equal((await h.call('SaveDocument', { path: 'a.txt' })).errorCode, ErrorCode.PermissionDenied);
    assert.equal(await readFile(ws.file('a.txt'), 'utf8'), 'disk\n');
    assert.deepEqual(ws.host.catalog.documents.get(ws.file('a.txt')), { text: 'half-typed user edit', dirty: true });
  });

  it('SaveDocument asks nothing when there is nothing to save', async () => {
    await ws.host.catalog.open(ws.file('b.txt'));
    assert.equal(value(await h.call('SaveDocument', { path: 'b.txt' })).status, 'notDirty');
    assert.equal(value(await h.call('SaveDocument', { path: 'missing.txt' })).status, 'notOpen');
    assert.equal(ws.host.prompts.length, 0);
  });

  it('SaveDocument asks before saving a protected file, and is off in restricted mode', async () => {
    await ws.host.catalog.open(ws.file('.env'), 'K=2\n');
    ws.host.answerPrompts('deny');
    assert.equal((await h.call('SaveDocument', { path: '.env' })).errorCode, ErrorCode.PermissionDenied);
    assert.equal(await readFile(ws.file('.env'), 'utf8'), 'K=1\n');
    h.registry.setWorkspaceTrusted(false);
    assert.equal((await h.call('SaveDocument', { path: 'a.txt' })).errorCode, ErrorCode.WorkspaceUntrusted);
  });

  it('CloseTab closes the file\'s tabs, keeps dirty ones, and stays on in restricted mode', async () => {
    const tab = (p: string, dirty: boolean) => ({ path: ws.file(p), label: p, active: false, dirty, kind: 'text' as const, group: 1, preview: false });
    ws.host.catalog.editors = [tab('a.txt', false), tab('a.txt', true), tab('b.txt', false)];
    h.registry.setWorkspaceTrusted(false);
    const v = value(await h.call('CloseTab', { path: 'a.txt' }));
    assert.equal(v.closed, 1);
    assert.equal(v.keptDirty, 1);
    assert.match(String(v.message), /SaveDocument/);
    assert.deepEqual(ws.host.catalog.editors.map((e) => [e.label, e.dirty]), [['a.txt', true], ['b.txt', false]]);
    assert.equal(value(await h.call('CloseTab', { path: 'nothing.txt' })).message, 'No tab showed this file.');
    assert.equal((await h.call('CloseTab', { path: '/etc/passwd' })).errorCode, ErrorCode.PathOutsideWorkspace);
  });
});
