import * as assert from 'node:assert/strict';
import { ErrorCode } from '../../../../src/protocol';
import type { SelectionInfo } from '../../../../src/core/host';
import { MAX_SELECTION_CHARS } from '../../../../src/tools/ide/getSelection';
import { IDE_GROUP, IDE_TOOLS } from '../../../../src/tools/ide/group';
import { DispatchHarness } from '../../../support/dispatch-harness';
import { createTempWorkspace, type TempWorkspace } from '../../../support/fake-host';

describe('tool GetSelection', () => {
  let ws: TempWorkspace;
  let h: DispatchHarness;
  beforeEach(async () => {
    ws = await createTempWorkspace(['ws'], { 'src/a.ts': 'const a = 1;\nconst b = 2;\n', '.env': 'TOKEN=abc\n' });
    h = new DispatchHarness({ host: ws.host, group: IDE_GROUP, tools: IDE_TOOLS });
  });
  afterEach(async () => {
    h.dispose();
    await ws.dispose();
  });

  function select(path: string | undefined, text: string, extra: Partial<SelectionInfo> = {}): void {
    ws.host.selection = {
      path,
      uri: path ? `file://${path}` : 'untitled:Untitled-1',
      language: 'typescript',
      selection: { startLine: 1, startCharacter: 0, endLine: 1, endCharacter: text.length },
      text,
      isEmpty: text === '',
      ...extra,
    };
  }

  const value = (r: { content: unknown[] }) => (r.content[0] as { value: Record<string, unknown> }).value;

  it('says clearly when no editor is active', async () => {
    const r = await h.call('GetSelection', {});
    assert.equal(r.success, true);
    assert.deepEqual(value(r), { activeEditor: false, message: 'No text editor is active, so nothing is selected.' });
  });

  it('returns file (workspace-relative), language, 1-based range, text and isEmpty', async () => {
    select(ws.file('src/a.ts'), 'const b = 2;');
    const r = await h.call('GetSelection', {});
    assert.deepEqual(value(r), {
      activeEditor: true,
      file: 'src/a.ts',
      language: 'typescript',
      range: { startLine: 2, startColumn: 1, endLine: 2, endColumn: 13 },
      text: 'const b = 2;',
      isEmpty: false,
    });
    assert.equal(ws.host.prompts.length, 0);
  });

  it('reports an empty selection (a caret) and an untitled document by its URI', async () => {
    select(undefined, '');
    const v = value(await h.call('GetSelection', {}));
    assert.equal(v.file, 'untitled:Untitled-1');
    assert.equal(v.isEmpty, true);
    assert.equal(v.text, '');
  });

  it('cuts very long selections and says so', async () => {
    select(ws.file('src/a.ts'), 'x'.repeat(MAX_SELECTION_CHARS + 10));
    const v = value(await h.call('GetSelection', {}));
    assert.equal((v.text as string).length, MAX_SELECTION_CHARS);
    assert.equal(v.truncated, true);
  });

  it('asks before sharing text selected in a protected file, and answers PERMISSION_DENIED on deny', async () => {
    select(ws.file('.env'), 'TOKEN=abc');
    ws.host.answerPrompts('deny');
    const denied = await h.call('GetSelection', {});
    assert.equal(denied.errorCode, ErrorCode.PermissionDenied);
    assert.match(ws.host.prompts[0].message, /\.env/);
    assert.equal(ws.host.prompts[0].offerAllowSession, false);
    ws.host.answerPrompts('allow');
    assert.equal(value(await h.call('GetSelection', {})).text, 'TOKEN=abc');
  });

  it('asks before sharing text selected in a file the user\'s own protectedPatterns name', async () => {
    await ws.write('notes.secret', 'hunter2\n');
    ws.host.userProtectedPatterns = ['*.secret'];
    select(ws.file('notes.secret'), 'hunter2');
    ws.host.answerPrompts('deny');
    assert.equal((await h.call('GetSelection', {})).errorCode, ErrorCode.PermissionDenied);
    assert.match(ws.host.prompts[0].message, /notes\.secret/);
  });
});
