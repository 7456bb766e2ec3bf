import * as assert from 'node:assert/strict';
import { MAX_SELECTED_CHARS, NO_EDITOR, selectionLabel, summarizeEditor, type EditorState } from '../../../../src/vscode/chat/editorContextSummary';

describe('editor context summary', () => {
  it('labels a sent selection by file and editor line numbers; no label without selected text', () => {
    const sel = (startLine: number, endLine: number, endCharacter: number) => ({ startLine, startCharacter: 0, endLine, endCharacter });
    assert.equal(selectionLabel({ file: 'src/a.ts', selection: sel(2, 6, 4), selectedText: 'x' }), 'src/a.ts:3-7');
    assert.equal(selectionLabel({ file: 'src/a.ts', selection: sel(2, 3, 0), selectedText: 'x' }), 'src/a.ts:3', 'a selection ending at a line start does not count that line');
    assert.equal(selectionLabel({ file: 'hello.txt', selection: sel(0, 0, 5), selectedText: 'Hello' }), 'hello.txt:1');
    assert.equal(selectionLabel({ file: 'src/a.ts', selection: sel(0, 0, 0), selectedText: '' }), undefined);
    assert.equal(selectionLabel(undefined), undefined);
    assert.equal(selectionLabel({ file: `${'d/'.repeat(400)}a.ts`, selection: sel(0, 0, 1), selectedText: 'x' })?.length, 300);
  });

  const base: EditorState = { file: 'src/a.ts', language: 'typescript', lineCount: 40, cursor: { line: 2, character: 4 } };

  it('names the file, language and 1-based cursor', () => {
    assert.equal(summarizeEditor(base), 'Active editor: src/a.ts (typescript, 40 lines)\nCursor: line 3, column 5');
    assert.equal(summarizeEditor(undefined), NO_EDITOR);
  });

  it('includes the selection and its text, capped at 2000 characters', () => {
    const text = 'x'.repeat(MAX_SELECTED_CHARS + 500);
    const s = summarizeEditor({ ...base, selection: { startLine: 2, startCharacter: 0, endLine: 9, endCharacter: 3 }, selectedText: text });
    assert.match(s, /Selection: line 3, column 1 to line 10, column 4/);
    assert.match(s, /Selected text \(first 2000 of 2500 characters\):\n/);
    assert.ok(s.length < MAX_SELECTED_CHARS + 300);
  });

  it('never includes selected text from a protected file or from outside the workspace', () => {
    const sel = { startLine: 0, startCharacter: 0, endLine: 0, endCharacter: 10 };
    const secret = summarizeEditor({ ...base, file: '.env', protected: true, selection: sel, selectedText: 'API_KEY=hunter2' });
    assert.doesNotMatch(secret, /hunter2/);
    assert.match(secret, /not shared/);
    const outside = summarizeEditor({ language: 'plaintext', lineCount: 1, outsideWorkspace: true, cursor: { line: 0, character: 0 }, selection: sel, selectedText: 'private' });
    assert.doesNotMatch(outside, /private/);
    assert.match(outside, /a file outside the workspace/);
  });
});
