/** OpenFile: opens a workspace file in an editor, optionally revealing and selecting a range. */
import { CodedError, ErrorCode } from '../../protocol';
import type { TextRange } from '../../core/host';
import { jsonResult } from '../../core/tool';
import { defineIdeTool } from '../support/toolGroup';
import { pathParameter, POSITION } from '../support/parameters';
import { requireFile } from '../support/requireFile';
import { INTEGER, objectOutput, STRING } from '../support/outputSchemas';

interface OpenFileArgs {
  path: string;
  line?: number;
  column?: number;
  startLine?: number;
  startColumn?: number;
  endLine?: number;
  endColumn?: number;
  preview?: boolean;
}

export const OpenFile = defineIdeTool<OpenFileArgs>({
  name: 'OpenFile',
  description:
    'Open a file of the workspace in an editor so the user sees it. Optionally put the cursor at `line`/`column`, ' +
    'or select the range `startLine`/`startColumn` to `endLine`/`endColumn`. Lines and columns start at 1. ' +
    'Returns the workspace-relative path, the language and the number of lines.',
  parameters: {
    type: 'object',
    properties: {
      path: pathParameter('Workspace-relative path (or an absolute path inside the workspace).'),
      line: { ...POSITION, description: 'Line to reveal, placing the cursor there (1-based).' },
      column: { ...POSITION, description: 'Column on `line` (1-based). Default 1.' },
      startLine: { ...POSITION, description: 'First line of the range to select (1-based).' },
      startColumn: { ...POSITION, description: 'Column on startLine (1-based). Default 1.' },
      endLine: { ...POSITION, description: 'Last line of the range (1-based). Default startLine.' },
      endColumn: { ...POSITION, description: 'Column on endLine where the selection ends (1-based, exclusive). Default: the end of endLine when endLine is given, else startColumn.' },
      preview: { type: 'boolean', description: 'Open in a preview tab that the next preview replaces. Default true.' },
    },
    required: ['path'],
    additionalProperties: false,
  },
  requiresPermission: false,
  effects: { readOnly: false, destructive: false },
  declineStrategy: 'reject',
  outputSchema: objectOutput({ path: STRING, language: STRING, lineCount: INTEGER }, ['path', 'language', 'lineCount']),
  availableWhenUntrusted: true,

  async run(args, ctx) {
    const selection = selectionFrom(args);
    const target = await ctx.resolvePath(args.path);
    await requireFile(ctx.host, target, 'OpenFile opens files');
    const opened = await ctx.host.openFile(target.absolute, { preview: args.preview ?? true, ...(selection ? { selection } : {}) });
    return jsonResult({ path: target.relative, language: opened.language, lineCount: opened.lineCount });
  },
});

/** Turns the 1-based arguments into a zero-based range; refuses mixed or backwards forms. */
function selectionFrom(args: OpenFileArgs): TextRange | undefined {
  const usesCaret = args.line !== undefined || args.column !== undefined;
  const usesRange = args.startLine !== undefined || args.startColumn !== undefined || args.endLine !== undefined || args.endColumn !== undefined;
  if (usesCaret && usesRange) throw badArgs('line: cannot be combined with startLine/startColumn/endLine/endColumn; use one form');
  if (usesCaret) {
    if (args.line === undefined) throw badArgs('line: is required when column is given');
    const line = args.line - 1;
    const character = (args.column ?? 1) - 1;
    return { startLine: line, startCharacter: character, endLine: line, endCharacter: character };
  }
  if (usesRange) {
    if (args.startLine === undefined) throw badArgs('startLine: is required for a range');
    const startLine = args.startLine - 1;
    const startCharacter = (args.startColumn ?? 1) - 1;
    const endLine = (args.endLine ?? args.startLine) - 1;
    const endCharacter = args.endColumn !== undefined ? args.endColumn - 1 : args.endLine !== undefined ? Number.MAX_SAFE_INTEGER : startCharacter;
    if (endLine < startLine || (endLine === startLine && endCharacter < startCharacter)) throw badArgs('endLine: the range ends before it starts');
    return { startLine, startCharacter, endLine, endCharacter };
  }
  return undefined;
}

function badArgs(message: string): CodedError {
  return new CodedError(ErrorCode.InvalidArguments, message);
}
