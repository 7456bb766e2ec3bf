import assert from 'node:assert/strict';
import { inlineCodePieces } from '../../../src/webview/inlineCode';

const shown = (text: string) => inlineCodePieces(text).map((p) => (p.source === undefined ? p.text : `<${p.text}>`)).join('');
const source = (text: string) => inlineCodePieces(text).map((p) => p.source ?? p.text).join('');

describe('inline code in a prompt title (src/webview/inlineCode.ts)', () => {
  it('shows a code span as code, without its backticks', () => {
    assert.equal(shown('Run `ls -la` in the app folder?'), 'Run <ls -la> in the app folder?');
    assert.equal(shown('`npm test` and `npm run lint`.'), '<npm test> and <npm run lint>.');
  });

  it('takes a longer fence for a command holding backticks, with one padding space stripped', () => {
    assert.equal(shown('Run `` echo `date` `` in app?'), 'Run <echo `date`> in app?');
    // As RunInTerminal writes it (src/tools/support/commandText.ts codeSpan).
    assert.equal(shown('Run ``` echo `date` ``x`` ``` in the ws folder?'), 'Run <echo `date` ``x``> in the ws folder?');
  });

  it('leaves backticks inside a word, unmatched or empty, as written', () => {
    for (const text of ['Delete a`b`c.txt (1 KB)?', 'Run `ls in app?', 'Run `` here?']) assert.equal(shown(text), text);
    // A backtick inside a span that closes only at a word's edge stays in the code, visible.
    assert.equal(shown('x `a`b` y'), 'x <a`b> y');
  });

  it('reads back exactly the text it was given (the digest covers it), markup included as text', () => {
    for (const text of ['Run `ls -la` in app?', 'Run `` echo `date` `` in app?', 'Delete a`b`c.txt?', 'Run `<img src=x onerror=alert(1)>` in app?', '``', '`', '']) {
      assert.equal(source(text), text);
    }
    assert.equal(shown('Run `<b>x</b>` in app?'), 'Run <<b>x</b>> in app?');
  });
});
