/**
 * How the built-in groups define their tools. A built-in tool does not name its group: the group
 * it is listed in stamps its name on it, so a tool cannot say one group and sit in another; and its
 * context is typed with its group's part of the host (src/core/host.ts), so a tool asks the editor
 * for no more than its group is meant to.
 */
import type { EditorToolsHost, IdeHost, IdeToolsHost, LanguageToolsHost, SearchToolsHost, SourceControlToolsHost, TasksToolsHost, TerminalToolsHost, WorkspaceToolsHost } from '../../core/host';
import type { ToolGroupSpec } from '../../core/registry';
import type { ClientTool, Preparation } from '../../core/tool';

/** A built-in tool as its file defines it: everything but its group's name. `H` is its group's host. */
export type GroupTool<H> = Omit<ClientTool<Record<string, unknown>, Preparation, H>, 'group'>;

/** One group and its tools, as the registry takes them (`registry.register(group, tools)`). */
export interface BuiltinGroup {
  readonly group: ToolGroupSpec;
  readonly tools: readonly ClientTool[];
}

/** Like `defineTool`, erases the argument types: the dispatcher validates the arguments against `parameters` first. */
type ToolDefiner<H> = <A, P extends Preparation = Preparation>(tool: Omit<ClientTool<A, P, H>, 'group'>) => GroupTool<H>;

function toolDefiner<H>(): ToolDefiner<H> {
  return (tool) => tool as unknown as GroupTool<H>;
}

export const defineIdeTool = toolDefiner<IdeToolsHost>();
export const defineWorkspaceTool = toolDefiner<WorkspaceToolsHost>();
export const defineEditorTool = toolDefiner<EditorToolsHost>();
export const defineTerminalTool = toolDefiner<TerminalToolsHost>();
export const defineSearchTool = toolDefiner<SearchToolsHost>();
export const defineLanguageTool = toolDefiner<LanguageToolsHost>();
export const defineSourceControlTool = toolDefiner<SourceControlToolsHost>();
export const defineTasksTool = toolDefiner<TasksToolsHost>();

/**
 * The group's tools, each stamped with the group's name. A `GroupTool<IdeToolsHost>` is a
 * `GroupTool<IdeHost>` because the whole host the dispatcher passes extends every group's host.
 */
export function stampGroup(group: ToolGroupSpec, tools: readonly GroupTool<IdeHost>[]): readonly ClientTool[] {
  return tools.map((tool): ClientTool => ({ ...tool, group: group.name }));
}
