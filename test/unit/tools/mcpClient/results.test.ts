import * as assert from 'node:assert/strict';
import { CodedError, ErrorCode } from '../../../../src/protocol';
import { mapCallResult, MAX_BINARY_BYTES, MAX_TEXT_CHARS } from '../../../../src/tools/mcpClient/results';
import { MAX_LINES_PER_MINUTE, StderrLines } from '../../../../src/tools/mcpClient/stderrLines';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof CodedError, String(e));
    return `${e.code}: ${e.message}`;
  }
  return 'no error';
}

describe('MCP servers: tool results', () => {
  it('maps text, images, audio, embedded resources and links', () => {
    const items = mapCallResult({
      content: [
        { type: 'text', text: 'hi' },
        { type: 'image', data: PNG.toString('base64'), mimeType: 'image/png' },
        { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
        { type: 'resource', resource: { uri: 'file:///a.txt', text: 'inside' } },
        { type: 'resource', resource: { uri: 'file:///dir/b.bin', blob: 'AQID', mimeType: 'application/x-thing' } },
        { type: 'resource_link', uri: 'file:///c.md', name: 'c', mimeType: 'text/markdown' },
      ],
    }, 'srv');
    assert.deepEqual(items, [
      { type: 'text', text: 'hi' },
      { type: 'binary', mimeType: 'image/png', bytes: new Uint8Array(PNG) },
      { type: 'binary', mimeType: 'audio/wav', bytes: new Uint8Array([0, 0, 0]) },
      { type: 'text', text: 'Resource file:///a.txt:\ninside' },
      { type: 'binary', mimeType: 'application/x-thing', bytes: new Uint8Array([1, 2, 3]), filename: 'b.bin' },
      { type: 'text', text: 'Resource link: file:///c.md\nname: c\ntype: text/markdown' },
    ]);
  });

  it('uses structuredContent when there is no content, and says so when there is nothing', () => {
    assert.deepEqual(mapCallResult({ content: [], structuredContent: { a: 1 } }, 'srv'), [{ type: 'json', value: { a: 1 } }]);
    assert.deepEqual(mapCallResult({ content: [] }, 'srv'), [{ type: 'text', text: '(the tool returned no content)' }]);
  });

  it('turns isError into TOOL_FAILED with the server text, capped', () => {
    assert.equal(codeOf(() => mapCallResult({ isError: true, content: [{ type: 'text', text: 'disk full' }] }, 'srv')), 'TOOL_FAILED: disk full');
    assert.match(codeOf(() => mapCallResult({ isError: true, content: [] }, 'srv')), /^TOOL_FAILED: MCP server srv reported an error without a message/);
    assert.ok(codeOf(() => mapCallResult({ isError: true, content: [{ type: 'text', text: 'x'.repeat(100_000) }] }, 'srv')).length < 4200);
  });

  it('refuses bad base64, oversize binaries and too many items; cuts long text; unknown MIME types become octet-stream', () => {
    assert.match(codeOf(() => mapCallResult({ content: [{ type: 'image', data: 'not base64!', mimeType: 'image/png' }] }, 'srv')), /^TOOL_FAILED: .*not valid base64/);
    const huge = 'A'.repeat(Math.ceil((MAX_BINARY_BYTES * 4) / 3) + 8);
    assert.match(codeOf(() => mapCallResult({ content: [{ type: 'image', data: huge, mimeType: 'image/png' }] }, 'srv')), new RegExp(`^${ErrorCode.ResultTooLarge}`));
    assert.match(codeOf(() => mapCallResult({ content: Array.from({ length: 1001 }, () => ({ type: 'text', text: 'x' })) }, 'srv')), /^RESULT_TOO_LARGE: .*1001 content items/);
    const [long] = mapCallResult({ content: [{ type: 'text', text: 'y'.repeat(MAX_TEXT_CHARS + 10) }] }, 'srv');
    assert.ok(long?.type === 'text' && long.text.endsWith(`(cut at ${MAX_TEXT_CHARS} characters)`));
    const [odd] = mapCallResult({ content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png"><script>' }] }, 'srv');
    assert.ok(odd?.type === 'binary' && odd.mimeType === 'application/octet-stream');
    assert.deepEqual(mapCallResult({ content: [{ type: 'surprise' }] }, 'srv'), [{ type: 'text', text: '(content of type "surprise" that Client Tools does not show)' }]);
    assert.match(codeOf(() => mapCallResult('nope', 'srv')), /^TOOL_FAILED/);
  });
});

describe('MCP servers: stderr to the log', () => {
  it('splits lines across chunks, cuts long lines, hides escape sequences and caps lines per minute', () => {
    const out: string[] = [];
    let now = 0;
    const lines = new StderrLines((l) => out.push(l), () => now);
    lines.push('one\ntw');
    lines.push('o\r\n\u001b[31mred\n');
    assert.deepEqual(out, ['one', 'two', '?[31mred']);
    lines.push(`${'z'.repeat(5000)}\n`);
    assert.equal(out[3]?.length, 1001);
    lines.push('x\n'.repeat(MAX_LINES_PER_MINUTE * 2));
    assert.equal(out.length, MAX_LINES_PER_MINUTE);
    now = 61_000;
    lines.push('later\n');
    assert.deepEqual(out.slice(-2), [`(${MAX_LINES_PER_MINUTE * 2 - (MAX_LINES_PER_MINUTE - 4)} more lines of stderr left out)`, 'later']);
  });
});
