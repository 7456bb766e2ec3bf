/**
 * Adapters from the extension's own objects (protocol run events, the dispatcher's call records) to
 * the chat webview's messages (src/protocol/webview.ts): bytes become base64 for inline images only,
 * long strings are clipped, and no text delta carries more than an answer can show. Kept out of the
 * webview protocol because they need core types.
 */
import type { CallRecord } from '../../core/callRecord';
import { assertNever, cutWithNote, type ContentItem, type RunEvent } from '../../protocol';
import { isInlineImageType, MAX_ANSWER_CHARS, MAX_EDITED_VALUE, MAX_INLINE_IMAGE_BYTES, MAX_POSTED_STRING, type ChatCallRecord, type ChatContentItem, type ChatRunEvent } from '../../protocol/webview';

/**
 * Converts a decoded protocol run event into what `postMessage` carries: bytes become base64 (only
 * for inline images within the cap), long strings in arguments and results are clipped; an ACP
 * agent's tool cards are named after `agent`.
 * `toBase64` is injected so this file stays free of Node's Buffer and of DOM APIs.
 */
export function toChatRunEvent(event: RunEvent, toBase64: (bytes: Uint8Array) => string, agent?: string): ChatRunEvent {
  switch (event.type) {
    case 'toolCallStarted':
      return { ...event, arguments: clipStrings(event.arguments, MAX_POSTED_STRING) as Record<string, unknown>, ...(agent !== undefined ? { agent: agent.slice(0, 64) } : {}) };
    case 'toolCallEnded':
      return { ...event, content: toChatContent(event.content, toBase64) };
    case 'textDelta':
      // The view keeps MAX_ANSWER_CHARS of an answer; one more tells it the answer was cut.
      return event.text.length > MAX_ANSWER_CHARS + 1 ? { ...event, text: event.text.slice(0, MAX_ANSWER_CHARS + 1) } : event;
    case 'runStarted':
    case 'toolCallUpdated':
    case 'groupExpanded':
    case 'contextCompacted':
    case 'steerUpdated':
    case 'contextUsage':
    case 'modelRetry':
    case 'runFinished':
    case 'runError':
      // Nothing in these is binary or long enough to clip.
      return event;
    default:
      return assertNever(event, 'run event');
  }
}

/** Converts the dispatcher's record of a call into what `postMessage` carries, clipped like run events. */
export function toChatCallRecord(record: CallRecord, toBase64: (bytes: Uint8Array) => string): ChatCallRecord {
  // The identity key stays in the extension: the card names the tool and its group.
  const { content, toolKey: _toolKey, ...rest } = record;
  return {
    ...rest,
    arguments: clipStrings(record.arguments, MAX_POSTED_STRING) as Record<string, unknown>,
    ...(record.target !== undefined ? { target: clipString(record.target, 1000 - CUT_NOTE_ROOM) } : {}),
    ...(record.errorMessage !== undefined ? { errorMessage: clipString(record.errorMessage, 10_000 - CUT_NOTE_ROOM) } : {}),
    ...(record.permission?.grantLabel !== undefined ? { permission: { ...record.permission, grantLabel: clipString(record.permission.grantLabel, 1000 - CUT_NOTE_ROOM) } } : {}),
    ...(content !== undefined ? { content: toChatContent(content.slice(0, 1000), toBase64) } : {}),
    ...(record.edited !== undefined ? { edited: { argument: record.edited.argument, proposed: clipString(record.edited.proposed, MAX_EDITED_VALUE), ran: clipString(record.edited.ran, MAX_EDITED_VALUE) } } : {}),
  };
}

function toChatContent(content: readonly ContentItem[], toBase64: (bytes: Uint8Array) => string): ChatContentItem[] {
  return content.map((item): ChatContentItem => {
    if (item.type === 'text') return { type: 'text', text: clipString(item.text, MAX_POSTED_STRING) };
    if (item.type === 'json') return { type: 'json', value: clipStrings(item.value, MAX_POSTED_STRING) };
    const inline = isInlineImageType(item.mimeType) && item.bytes.byteLength <= MAX_INLINE_IMAGE_BYTES;
    return {
      type: 'binary',
      mimeType: item.mimeType,
      ...(item.filename !== undefined ? { filename: item.filename } : {}),
      byteLength: item.bytes.byteLength,
      ...(inline ? { data: toBase64(item.bytes) } : {}),
    };
  });
}

/** Characters kept free for cutWithNote's note, so a cut string still fits its schema's maximum. */
const CUT_NOTE_ROOM = 160;

function clipString(s: string, max: number): string {
  return cutWithNote(s, max);
}

const MAX_ENTRIES = 500;
const MAX_DEPTH = 32;

/**
 * Copies a JSON-like value with long strings clipped, arrays and objects cut to MAX_ENTRIES
 * entries (a last entry says how many were left out) and nesting beyond MAX_DEPTH replaced by "…".
 */
export function clipStrings(value: unknown, max: number, depth = 0): unknown {
  if (typeof value === 'string') return clipString(value, max);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '…';
  if (Array.isArray(value)) {
    const out = value.slice(0, MAX_ENTRIES).map((v) => clipStrings(v, max, depth + 1));
    if (value.length > MAX_ENTRIES) out.push(`… ${value.length - MAX_ENTRIES} more items`);
    return out;
  }
  const entries = Object.entries(value);
  const out: Record<string, unknown> = {};
  for (const [k, v] of entries.slice(0, MAX_ENTRIES)) out[k] = clipStrings(v, max, depth + 1);
  if (entries.length > MAX_ENTRIES) out['…'] = `${entries.length - MAX_ENTRIES} more keys`;
  return out;
}
