/** The `Language` tool group: what the editor's language servers know (definitions, references, types, symbols, calls) and their renames and fixes. */
import type { ToolGroupSpec } from '../../core/registry';
import type { ClientTool } from '../../core/tool';
import { stampGroup, type BuiltinGroup } from '../support/toolGroup';
import { ApplyCodeAction } from './applyCodeAction';
import { FindImplementations } from './findImplementations';
import { FindReferences } from './findReferences';
import { GetCallHierarchy } from './getCallHierarchy';
import { GetCodeActions } from './getCodeActions';
import { GetDocumentSymbols } from './getDocumentSymbols';
import { GetHover } from './getHover';
import { GoToDefinition } from './goToDefinition';
import { GoToTypeDefinition } from './goToTypeDefinition';
import { RenameSymbol } from './renameSymbol';
import { SearchWorkspaceSymbols } from './searchWorkspaceSymbols';

export const LANGUAGE_GROUP: ToolGroupSpec = {
  name: 'Language',
  description:
    'Ask the editor\'s language servers: definitions, type definitions, implementations, references, hover (types and docs), a file\'s outline, ' +
    'workspace symbols, callers and callees; rename a symbol and apply quick fixes, each change reviewed by the user.',
  functionResult:
    'Give a position as path, line and column (1-based), or just the symbol\'s name as symbol. Results are "path:line:column" with the line\'s text; ' +
    'places outside the workspace (libraries, the standard library) come without text. RenameSymbol and ApplyCodeAction show the user one review of every file they change.',
  systemPrompt:
    'Use the Language tools to navigate code instead of reading whole files: GetDocumentSymbols for a file\'s outline, GoToDefinition and ' +
    'FindReferences to follow a symbol, GetHover for its type. Rename with RenameSymbol rather than editing each use by hand.',
  startCollapsed: true,
};

export const LANGUAGE_TOOLS: readonly ClientTool[] = stampGroup(LANGUAGE_GROUP, [
  GoToDefinition, GoToTypeDefinition, FindImplementations, FindReferences, GetHover, GetDocumentSymbols, SearchWorkspaceSymbols, GetCallHierarchy,
  RenameSymbol, GetCodeActions, ApplyCodeAction,
]);

export function languageToolGroup(): BuiltinGroup {
  return { group: LANGUAGE_GROUP, tools: LANGUAGE_TOOLS };
}
