/** ListTasks: the workspace's tasks (tasks.json and those its extensions detect: npm scripts, tsc, …), each with the command it would run. */
import { jsonResult } from '../../core/tool';
import { locateInWorkspace } from '../support/workspacePaths';
import { defineTasksTool } from '../support/toolGroup';
import { NO_PARAMETERS } from '../support/parameters';
import { arrayOf, INTEGER, objectOutput, STRING } from '../support/outputSchemas';
import { taskCommand } from './taskCommand';

export const MAX_TASKS = 200;

export const ListTasks = defineTasksTool({
  name: 'ListTasks',
  description:
    'List the workspace\'s tasks (from .vscode/tasks.json and the ones extensions detect, such as npm scripts), each with name, source, folder, group ' +
    '(build, test, …) and the shell command it would run, when it runs one. Changes nothing; RunTask runs one after the user approves its command.',
  parameters: NO_PARAMETERS,
  requiresPermission: false,
  effects: { readOnly: true },
  declineStrategy: 'reject',
  outputSchema: objectOutput(
    {
      // Each task has the command it would run or, when that cannot be stated in advance, why not (cannotRun).
      tasks: arrayOf(objectOutput({ name: STRING, source: STRING, folder: STRING, group: STRING, detail: STRING, command: STRING, cannotRun: STRING }, ['name', 'source'])),
      more: INTEGER,
      message: STRING,
    },
    ['tasks'],
  ),

  async run(_args, ctx) {
    const folders = ctx.host.workspaceFolders();
    const tasks = await ctx.host.listTasks();
    return jsonResult({
      tasks: tasks.slice(0, MAX_TASKS).map((t) => {
        const folder = t.folder !== undefined ? locateInWorkspace(t.folder, folders)?.folder.name : undefined;
        let runs: Record<string, string>;
        try {
          runs = { command: taskCommand(t.name, t.execution, t.folder).command };
        } catch (e) {
          runs = { cannotRun: e instanceof Error ? e.message : String(e) };
        }
        return { name: t.name, source: t.source, ...(folder ? { folder } : {}), ...(t.group ? { group: t.group } : {}), ...(t.detail ? { detail: t.detail.slice(0, 200) } : {}), ...runs };
      }),
      ...(tasks.length > MAX_TASKS ? { more: tasks.length - MAX_TASKS } : {}),
      ...(tasks.length === 0 ? { message: 'The workspace has no tasks.' } : {}),
    });
  },
});
