/**
 * The extension's built-in tool groups, in the order the Tool Groups view lists them. The extension
 * registers each of them (src/vscode/context.ts); a new group is added here and nowhere else.
 */
import type { ToolRegistry } from '../core/registry';
import { editorToolGroup } from './editor/group';
import { ideToolGroup } from './ide/group';
import { languageToolGroup } from './language/group';
import { searchToolGroup } from './search/group';
import { sourceControlToolGroup } from './sourceControl/group';
import { tasksToolGroup } from './tasks/group';
import type { BuiltinGroup } from './support/toolGroup';
import { terminalToolGroup } from './terminal/group';
import { workspaceToolGroup } from './workspace/group';

export type { BuiltinGroup } from './support/toolGroup';

export const BUILTIN_GROUPS: readonly BuiltinGroup[] = [ideToolGroup(), workspaceToolGroup(), editorToolGroup(), terminalToolGroup(), searchToolGroup(), languageToolGroup(), sourceControlToolGroup(), tasksToolGroup()];

/**
 * Registers every built-in group; the returned disposables remove them again. The built-in schemas
 * pass the meta-schema and compile with the registry's strict options (test/unit/tools/schemas.test.ts),
 * so each is compiled at its tool's first call rather than here, at activation.
 */
export function registerBuiltinGroups(registry: ToolRegistry): ReturnType<ToolRegistry['register']>[] {
  return BUILTIN_GROUPS.map(({ group, tools }) => registry.register(group, tools, { schemasChecked: true, source: { kind: 'builtin' } }));
}
