import assert from 'node:assert/strict';
import { isLong, lineCount, LONG_PASTE_CHARS, LONG_PASTE_LINES } from '../../../src/webview/longPaste';

describe('long pastes (issue 29 item 10)', () => {
  it('a paste is long from LONG_PASTE_CHARS characters or past LONG_PASTE_LINES lines', () => {
    assert.equal(lineCount('a'), 1);
    assert.equal(lineCount('a\nb\n'), 3);
    assert.equal(isLong('x'.repeat(LONG_PASTE_CHARS - 1)), false);
    assert.equal(isLong('x'.repeat(LONG_PASTE_CHARS)), true);
    assert.equal(isLong(Array.from({ length: LONG_PASTE_LINES }, () => 'l').join('\n')), false);
    assert.equal(isLong(Array.from({ length: LONG_PASTE_LINES + 1 }, () => 'l').join('\n')), true);
  });
});
