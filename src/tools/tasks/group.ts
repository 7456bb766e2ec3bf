/** The `Tasks` tool group: the workspace's tasks, listed, and run one at a time after the user approves each. */
import type { ToolGroupSpec } from '../../core/registry';
import type { ClientTool } from '../../core/tool';
import { stampGroup, type BuiltinGroup } from '../support/toolGroup';
import { ListTasks } from './listTasks';
import { RunTask } from './runTask';

export const TASKS_GROUP: ToolGroupSpec = {
  name: 'Tasks',
  description: 'The workspace\'s tasks (build, test, lint, npm scripts, …): list them, and run one after the user approves its exact command.',
  functionResult:
    'Every RunTask call shows the user the task and its exact command and waits for approval; the result has the exit code and the output.',
  systemPrompt:
    'Prefer the workspace\'s own tasks to building commands yourself: ListTasks first, then RunTask by name. Never try to get around a denied task.',
  startCollapsed: true,
};

export const TASKS_TOOLS: readonly ClientTool[] = stampGroup(TASKS_GROUP, [ListTasks, RunTask]);

export function tasksToolGroup(): BuiltinGroup {
  return { group: TASKS_GROUP, tools: TASKS_TOOLS };
}
