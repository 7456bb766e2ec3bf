/**
 * An MCP `tools/call` result as client tool content: text stays text, images (and audio) become
 * binary content so the chat shows them and the model sees them, embedded resources become text or
 * binary, resource links a line of text, `structuredContent` JSON when there is nothing else (or,
 * for a tool with an output schema, in place of its text, which only repeats it), and
 * `isError` a TOOL_FAILED error carrying the server's text. Everything is capped: a server is a
 * peer like any other and may send more than anyone should hold.
 */
import { CodedError, ErrorCode, MAX_CONTENT_ITEMS, type ContentItem } from '../../protocol';

/** One text item longer than this is cut (with a marker); the dispatcher still caps the whole result. */
export const MAX_TEXT_CHARS = 1_000_000;
/** One binary item larger than this (decoded) fails the call with RESULT_TOO_LARGE rather than lose the image silently. */
export const MAX_BINARY_BYTES = 16 * 1024 * 1024;
/** The error text of an `isError` result is cut at this. */
export const MAX_ERROR_CHARS = 4000;

const MIME = /^[\w.+-]{1,100}\/[\w.+-]{1,100}$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Maps a result; throws CodedError TOOL_FAILED (`isError`, a malformed item) or RESULT_TOO_LARGE.
 * `structured`: the tool declared an output schema (the SDK client checked the result against it).
 */
export function mapCallResult(result: unknown, serverName: string, structured = false): ContentItem[] {
  if (!isRecord(result)) throw failed(`MCP server ${serverName} answered with something other than a tool result`);
  const content = Array.isArray(result.content) ? result.content : [];
  if (result.isError === true) {
    const textOf = content.map((c) => (isRecord(c) && c.type === 'text' && typeof c.text === 'string' ? c.text : '')).filter(Boolean).join('\n');
    throw failed(clip(textOf || `MCP server ${serverName} reported an error without a message`, MAX_ERROR_CHARS));
  }
  if (content.length > MAX_CONTENT_ITEMS) throw new CodedError(ErrorCode.ResultTooLarge, `MCP server ${serverName} returned ${content.length} content items; at most ${MAX_CONTENT_ITEMS} are accepted`);
  if (structured && isRecord(result.structuredContent)) {
    // MCP asks a server to repeat its structured result as text; the JSON is the result itself.
    const others = content.filter((c) => !(isRecord(c) && c.type === 'text')).map((c) => mapItem(c, serverName));
    return [{ type: 'json', value: result.structuredContent }, ...others];
  }
  const items = content.map((c) => mapItem(c, serverName));
  if (items.length === 0 && result.structuredContent !== undefined) items.push({ type: 'json', value: result.structuredContent });
  if (items.length === 0) items.push({ type: 'text', text: '(the tool returned no content)' });
  return items;
}

function mapItem(c: unknown, serverName: string): ContentItem {
  if (!isRecord(c)) throw failed(`MCP server ${serverName} returned a content item that is not an object`);
  switch (c.type) {
    case 'text':
      return { type: 'text', text: clip(str(c.text), MAX_TEXT_CHARS) };
    case 'image':
    case 'audio':
      return binary(str(c.data), str(c.mimeType), serverName);
    case 'resource': {
      const r = isRecord(c.resource) ? c.resource : {};
      const uri = str(r.uri);
      if (typeof r.text === 'string') return { type: 'text', text: clip(`${uri ? `Resource ${uri}:\n` : ''}${r.text}`, MAX_TEXT_CHARS) };
      if (typeof r.blob === 'string') return binary(r.blob, str(r.mimeType) || 'application/octet-stream', serverName, filenameOf(uri));
      throw failed(`MCP server ${serverName} returned an embedded resource without text or blob`);
    }
    case 'resource_link': {
      const parts = [`Resource link: ${str(c.uri)}`, str(c.name) && `name: ${str(c.name)}`, str(c.mimeType) && `type: ${str(c.mimeType)}`, str(c.description)].filter(Boolean);
      return { type: 'text', text: clip(parts.join('\n'), MAX_TEXT_CHARS) };
    }
    default:
      return { type: 'text', text: `(content of type "${clip(str(c.type), 50)}" that Client Tools does not show)` };
  }
}

function binary(data: string, mimeType: string, serverName: string, filename?: string): ContentItem {
  // The decoded size is known before decoding: refuse first, so a huge string is never copied.
  const size = Math.floor((data.length * 3) / 4);
  if (size > MAX_BINARY_BYTES) throw new CodedError(ErrorCode.ResultTooLarge, `MCP server ${serverName} returned ${size} bytes of binary content; at most ${MAX_BINARY_BYTES} are accepted`);
  if (data.length % 4 !== 0 || !BASE64.test(data)) throw failed(`MCP server ${serverName} returned binary content that is not valid base64`);
  const type = MIME.test(mimeType) ? mimeType : 'application/octet-stream';
  const item: ContentItem = { type: 'binary', mimeType: type, bytes: new Uint8Array(Buffer.from(data, 'base64')) };
  if (filename !== undefined) item.filename = filename;
  return item;
}

function filenameOf(uri: string): string | undefined {
  const last = uri.split(/[/\\]/).pop() ?? '';
  const clean = last.replace(/[\u0000-\u001f\u007f]/g, '').slice(0, 200);
  return clean === '' ? undefined : clean;
}

function failed(message: string): CodedError {
  return new CodedError(ErrorCode.ToolFailed, message);
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function clip(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max)}… (cut at ${max} characters)` : s;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
