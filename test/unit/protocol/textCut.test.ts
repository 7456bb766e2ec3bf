/**
 * cutWithNote (src/protocol/textCut.ts): a cut text says how large the original was, in characters,
 * UTF-8 bytes and lines, and a second cut keeps the original's figures.
 */
import * as assert from 'node:assert/strict';
import { clip } from '../../../src/webview/state';
import { toChatCallRecord } from '../../../src/vscode/chat/chatBridge';
import { count, cutWithNote, measureText } from '../../../src/protocol';
import { MAX_POSTED_STRING } from '../../../src/protocol/webview';
import { MAX_DETAIL_CHARS } from '../../../src/webview/state';

/** 4,001 lines of about 120 bytes each, some of them not ASCII: 481,826 bytes like the file. */
function bigFile(): string {
  const lines: string[] = [];
  for (let i = 1; i <= 4001; i++) lines.push(`${String(i).padStart(5, '0')} ${'é'.repeat(3)} ${'x'.repeat(103)}`);
  return `${lines.join('\n')}\n`;
}

describe('cutWithNote: a cut text tells the truth about the original', () => {
  it('measures characters, UTF-8 bytes and lines (a trailing newline ends the last line)', () => {
    assert.deepEqual(measureText(''), { chars: 0, bytes: 0, lines: 0 });
    assert.deepEqual(measureText('a\nb\n'), { chars: 4, bytes: 4, lines: 2 });
    assert.deepEqual(measureText('é😀\nz'), { chars: 5, bytes: 2 + 4 + 1 + 1, lines: 2 });
  });

  it('a short text is left alone; a long one keeps its start and names the original\'s size', () => {
    assert.equal(cutWithNote('hello', 10), 'hello');
    const text = bigFile();
    const size = measureText(text);
    const cut = cutWithNote(text, 20_000);
    assert.equal(cut.slice(0, 20_000), text.slice(0, 20_000));
    assert.equal(cut.slice(20_000), `\n… [showing the first 20,000 of ${count(size.chars)} characters; the original is ${count(size.bytes)} bytes, 4,001 lines]`);
  });

  it('cut twice (the extension posts it, the chat keeps it), the note still names the original, never "26 more characters"', () => {
    const text = bigFile();
    const size = measureText(text);
    const posted = toChatCallRecord({ recordId: 'r', toolKey: 'k', requestId: 'q', callId: 'c', toolName: 'ReadFile', groupName: 'IDE', arguments: {}, background: false, status: 'succeeded', content: [{ type: 'text', text }] }, () => '');
    const postedText = posted.content?.[0]?.type === 'text' ? posted.content[0].text : '';
    assert.ok(postedText.length <= MAX_POSTED_STRING + 160);
    const kept = clip(postedText, MAX_DETAIL_CHARS);
    assert.match(kept, new RegExp(`of ${count(size.chars)} characters; the original is ${count(size.bytes)} bytes, 4,001 lines\\]$`));
    const smaller = clip(postedText, 1000);
    assert.equal(smaller, `${text.slice(0, 1000)}\n… [showing the first 1,000 of ${count(size.chars)} characters; the original is ${count(size.bytes)} bytes, 4,001 lines]`);
  });

  it('never splits a surrogate pair', () => {
    const cut = cutWithNote('😀'.repeat(10), 5);
    assert.ok(cut.startsWith('😀😀\n'), cut);
  });
});
