import * as assert from 'node:assert/strict';
import { splitLines, toLf } from '../../../src/core/lineDiff';

describe('line endings as LF', () => {
  it('turns CRLF and a lone CR into LF, and leaves a text without CR as it is', () => {
    assert.equal(toLf('a\r\nb\rc\nd'), 'a\nb\nc\nd');
    assert.equal(toLf('\r\r\n\n'), '\n\n\n');
    assert.equal(toLf('plain\ntext\n'), 'plain\ntext\n');
    assert.equal(toLf(''), '');
  });

  it('splits lines of every ending alike', () => {
    assert.deepEqual(splitLines('a\r\nb\rc\nd'), ['a\n', 'b\n', 'c\n', 'd']);
    assert.deepEqual(splitLines('a\nb\n'), ['a\n', 'b\n']);
  });
});
