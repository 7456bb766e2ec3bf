/**
 * A dispatcher answer as an MCP `tools/call` result. Text stays text; JSON becomes its text (for
 * clients that read only `content`) plus `structuredContent` when it is an object (MCP's rule);
 * images become image content; other binary becomes an embedded resource (text for text MIME types,
 * else a base64 blob); a failed call is `isError: true` with `CODE: message`, so the client's model
 * sees the same code a backend would.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ClientToolInvokeResponse, ContentItem } from '../../protocol';

type McpContent = CallToolResult['content'][number];

/**
 * `declaresOutput`: the tool listed an `outputSchema`, so a successful result must carry
 * `structuredContent`; a success without a JSON object (a skipped call) becomes `isError` with its
 * code, which clients do not check against the schema.
 */
export function toCallToolResult(response: ClientToolInvokeResponse, declaresOutput = false): CallToolResult {
  if (!response.success) {
    const code = response.errorCode ?? 'TOOL_FAILED';
    return { isError: true, content: [{ type: 'text', text: `${code}: ${response.errorMessage ?? 'the call failed'}` }] };
  }
  if (declaresOutput && !response.content.some((item) => item.type === 'json' && isPlainObject(item.value))) {
    const said = response.content.map((item) => (item.type === 'text' ? item.text : '')).join('\n');
    return { isError: true, content: [{ type: 'text', text: `${response.errorCode ?? 'TOOL_FAILED'}: ${said || 'the tool returned no structured result'}` }] };
  }
  const content: McpContent[] = [];
  let structured: Record<string, unknown> | undefined;
  for (const item of response.content) {
    content.push(toMcpContent(item));
    if (item.type === 'json' && structured === undefined && isPlainObject(item.value)) structured = item.value;
  }
  const result: CallToolResult = { content };
  // A skip (the user declined, the tool's strategy is `skip`) is success with a note; keep its code visible.
  if (response.errorCode !== undefined) result._meta = { errorCode: response.errorCode };
  if (structured !== undefined) result.structuredContent = structured;
  return result;
}

function toMcpContent(item: ContentItem): McpContent {
  switch (item.type) {
    case 'text':
      return { type: 'text', text: item.text };
    case 'json':
      return { type: 'text', text: JSON.stringify(item.value, null, 2) };
    case 'binary': {
      const data = Buffer.from(item.bytes.buffer, item.bytes.byteOffset, item.bytes.byteLength).toString('base64');
      if (item.mimeType.startsWith('image/')) return { type: 'image', data, mimeType: item.mimeType };
      if (item.mimeType.startsWith('audio/')) return { type: 'audio', data, mimeType: item.mimeType };
      const uri = `client-tools:///${encodeURIComponent(item.filename ?? 'result')}`;
      return { type: 'resource', resource: { uri, mimeType: item.mimeType, blob: data } };
    }
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
