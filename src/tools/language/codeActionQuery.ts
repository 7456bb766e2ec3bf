/** What GetCodeActions and ApplyCodeAction share: the range they ask about, and the server's actions for it. */
import { CodedError, ErrorCode } from '../../protocol';
import type { CodeActionInfo, LanguageToolsHost, TextRange } from '../../core/host';
import type { ResolvedPath } from '../../core/paths';
import type { JsonSchema, ToolContext } from '../../core/tool';
import { pathParameter, POSITION } from '../support/parameters';
import { languageFile } from './symbolTarget';

export interface RangeArgs {
  path: string;
  startLine: number;
  startColumn?: number;
  endLine?: number;
  endColumn?: number;
  kind?: string;
}

export const RANGE_PROPERTIES: Record<string, JsonSchema> = {
  path: pathParameter('Workspace-relative path of the file.'),
  startLine: { ...POSITION, description: 'One-based first line of the range (a problem\'s line, or the code to refactor).' },
  startColumn: { ...POSITION, description: 'One-based column where the range starts. Default 1.' },
  endLine: { ...POSITION, description: 'One-based last line of the range. Default startLine.' },
  endColumn: { ...POSITION, description: 'One-based column where the range ends (exclusive). Default the end of endLine.' },
  kind: { type: 'string', minLength: 1, maxLength: 100, pattern: '^[A-Za-z]+(\\.[A-Za-z]+)*$', description: 'Only actions of this kind: quickfix, refactor, refactor.extract, source.organizeImports, …' },
};

export async function actionsAt(args: RangeArgs, ctx: ToolContext<LanguageToolsHost>): Promise<{ file: ResolvedPath; range: TextRange; actions: CodeActionInfo[] }> {
  const file = await languageFile(args.path, ctx);
  const lines = (await ctx.host.readDocument(file.absolute)).text.split(/\r?\n/);
  const endLine = args.endLine ?? args.startLine;
  if (args.startLine > lines.length || endLine > lines.length) throw new CodedError(ErrorCode.InvalidArguments, `startLine: ${file.relative} has ${lines.length} lines`);
  if (endLine < args.startLine) throw new CodedError(ErrorCode.InvalidArguments, `endLine: ${endLine} is before startLine ${args.startLine}`);
  const range: TextRange = {
    startLine: args.startLine - 1,
    startCharacter: (args.startColumn ?? 1) - 1,
    endLine: endLine - 1,
    endCharacter: args.endColumn !== undefined ? args.endColumn - 1 : lines[endLine - 1].length,
  };
  const actions = await ctx.host.codeActions(file.absolute, range, args.kind);
  return { file, range, actions };
}
