/**
 * The server tools through which the model reads a cut tool result: `ReadToolResult` pages through
 * it by character offset, `SearchToolResult` finds the lines that contain a string. They are offered
 * only to a thread that holds a result handle, so they cost no tokens otherwise.
 */
import type { ServerTool } from '../serverTools';
import type { ResultStore } from './resultStore';

export const READ_TOOL_RESULT = 'ReadToolResult';
export const SEARCH_TOOL_RESULT = 'SearchToolResult';

/** Characters one ReadToolResult call returns at most; the thread's result share caps it further. */
const MAX_PAGE_CHARS = 32_000;
const MAX_MATCHES = 50;
const MAX_LINE_CHARS = 300;
/** A search is linear in the result times nothing more than this: a query of 200,000 characters took 130 ms over 8M. */
const MAX_QUERY_CHARS = 1_000;

export function resultTools(store: ResultStore, threadId: string, pageChars: number): ServerTool[] {
  const page = Math.max(1_000, Math.min(MAX_PAGE_CHARS, pageChars));
  const readTool: ServerTool = {
    name: READ_TOOL_RESULT,
    description: `Reads part of a tool result that was too large to show whole (its excerpt names a handle). Returns at most ${page} characters from a character offset.`,
    parameters: {
      type: 'object',
      properties: {
        handle: { type: 'string', description: 'The handle from the cut result, e.g. "result_0123456789ab".' },
        offset: { type: 'integer', minimum: 0, description: 'Character offset to start at (default 0).' },
        length: { type: 'integer', minimum: 1, description: `Characters to read (default and maximum ${page}).` },
      },
      required: ['handle'],
      additionalProperties: false,
    },
    execute(args) {
      const found = store.get(threadId, String(args.handle));
      if (!found.ok) return { content: [{ type: 'text', text: found.reason }], isError: true };
      const total = found.text.length;
      const offset = Math.min(typeof args.offset === 'number' ? args.offset : 0, total);
      const length = Math.min(typeof args.length === 'number' ? args.length : page, page);
      const slice = found.text.slice(offset, offset + length);
      const end = offset + slice.length;
      const more = end < total ? ` ${total - end} more characters follow; read on with offset ${end}.` : ' This is the end of the result.';
      return `[${found.toolName} result, characters ${offset}-${end} of ${total}.${more}]\n${slice}`;
    },
  };
  const searchTool: ServerTool = {
    name: SEARCH_TOOL_RESULT,
    description: 'Finds the lines of a cut tool result that contain a string (case-insensitive), with their line numbers and character offsets for ReadToolResult.',
    parameters: {
      type: 'object',
      properties: {
        handle: { type: 'string', description: 'The handle from the cut result.' },
        query: { type: 'string', minLength: 1, maxLength: MAX_QUERY_CHARS, description: 'The text to look for.' },
      },
      required: ['handle', 'query'],
      additionalProperties: false,
    },
    execute(args) {
      const found = store.get(threadId, String(args.handle));
      if (!found.ok) return { content: [{ type: 'text', text: found.reason }], isError: true };
      const query = String(args.query).toLowerCase();
      const matches: string[] = [];
      let count = 0;
      let offset = 0;
      found.text.split('\n').forEach((line, i) => {
        if (line.toLowerCase().includes(query)) {
          count++;
          if (matches.length < MAX_MATCHES) matches.push(`line ${i + 1}, offset ${offset}: ${line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line}`);
        }
        offset += line.length + 1;
      });
      if (count === 0) return `No line of the ${found.toolName} result contains "${String(args.query)}".`;
      const shown = count > matches.length ? ` (the first ${matches.length} shown)` : '';
      return `${count} matching line${count === 1 ? '' : 's'}${shown}:\n${matches.join('\n')}`;
    },
  };
  return [readTool, searchTool];
}
