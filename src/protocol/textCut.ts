/**
 * Cutting a long text for display with a note that tells the truth about the original: how much is
 * shown and how large the original is in characters, UTF-8 bytes and lines. A text already cut by
 * this function and cut again keeps the original's figures (the extension clips what it posts to
 * the chat, the chat clips what it keeps): "… (26 more characters)" once hid a 481,826-byte file.
 * No Node or DOM APIs: the webview bundles it. The result shares no memory with the original
 * (clipText.ts's `detached`), so keeping a cut does not keep the whole alive.
 */
import { detached } from './clipText';

export interface TextSize {
  chars: number;
  bytes: number;
  lines: number;
}

/**
 * Characters, UTF-8 bytes and lines of `text` (a last line without a newline counts; "" has 0). The
 * newlines and the runs of non-ASCII characters are found by the engine's own search, so an ASCII
 * text of megabytes is not walked character by character in script.
 */
export function measureText(text: string): TextSize {
  let lines = text.length > 0 ? 1 : 0;
  for (let at = text.indexOf('\n'); at >= 0 && at < text.length - 1; at = text.indexOf('\n', at + 1)) lines++;
  let bytes = text.length;
  const nonAscii = /[^\x00-\x7f]+/g;
  for (let run = nonAscii.exec(text); run; run = nonAscii.exec(text)) bytes += extraBytes(run[0]);
  return { chars: text.length, bytes, lines };
}

/** UTF-8 bytes of a run of non-ASCII UTF-16 units beyond one per unit: a pair is 4 bytes, a lone surrogate 3. */
function extraBytes(run: string): number {
  let extra = 0;
  for (let i = 0; i < run.length; i++) {
    const c = run.charCodeAt(i);
    if (c < 0x800) extra += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < run.length && (run.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      extra += 2;
      i++;
    } else extra += 2;
  }
  return extra;
}

const NOTE = /\n… \[showing the first [\d,]+ of ([\d,]+) characters; the original is ([\d,]+) bytes, ([\d,]+) lines?\]$/;

/** `text` if it fits in `max` characters, else its start and a note naming the original's size. */
export function cutWithNote(text: string, max: number): string {
  const earlier = NOTE.exec(text);
  const body = earlier ? text.slice(0, earlier.index) : text;
  if (body.length <= max) return text;
  const size = earlier ? { chars: figure(earlier[1]), bytes: figure(earlier[2]), lines: figure(earlier[3]) } : measureText(text);
  return cutWithSize(body, size, max);
}

/**
 * The start of `body` (longer than `max`) and the note, for a caller that built only the start of
 * a long text and counted the whole's `size` itself (a unified diff of millions of lines).
 */
export function cutWithSize(body: string, size: TextSize, max: number): string {
  const head = body.slice(0, offPair(body, max));
  return detached(`${head}\n… [showing the first ${count(head.length)} of ${count(size.chars)} characters; the original is ${count(size.bytes)} bytes, ${count(size.lines)} line${size.lines === 1 ? '' : 's'}]`);
}

/** 481826 → "481,826". */
export function count(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function figure(text: string): number {
  return Number(text.replace(/,/g, ''));
}

/** Moves a cut off the middle of a surrogate pair. */
function offPair(text: string, at: number): number {
  const c = text.charCodeAt(at - 1);
  return c >= 0xd800 && c <= 0xdbff ? at - 1 : at;
}
