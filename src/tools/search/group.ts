/** The `Search` tool group: the workspace's text and folders, searched the way the editor searches them. */
import type { ToolGroupSpec } from '../../core/registry';
import type { ClientTool } from '../../core/tool';
import { stampGroup, type BuiltinGroup } from '../support/toolGroup';
import { ListDirectory } from './listDirectory';
import { SearchText } from './searchText';

export const SEARCH_GROUP: ToolGroupSpec = {
  name: 'Search',
  description: 'Search the text of the workspace (literal or regular expression, with the user\'s excludes) and list its folders.',
  functionResult:
    'Results name places as "path:line:column" (1-based, paths relative to the workspace folder). SearchText leaves out files.exclude, ' +
    'search.exclude, .gitignore and files with secrets, and says how many more lines matched than it returned.',
  systemPrompt:
    'Search tools only read. Use SearchText to find where something is written instead of reading whole files, and ListDirectory to see ' +
    'how a folder is laid out. Narrow a search with include globs rather than raising maxResults.',
  startCollapsed: true,
};

export const SEARCH_TOOLS: readonly ClientTool[] = stampGroup(SEARCH_GROUP, [SearchText, ListDirectory]);

export function searchToolGroup(): BuiltinGroup {
  return { group: SEARCH_GROUP, tools: SEARCH_TOOLS };
}
