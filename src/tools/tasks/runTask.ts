/**
 * RunTask: runs one of the workspace's tasks after the user approved it, every time, in a prompt
 * naming the task and showing the exact command (src/tools/tasks/taskCommand.ts). It runs like
 * RunInTerminal: that command in the user's shell, in a terminal of its own, with a time limit,
 * returning the exit code and the output. A task that cannot be stated as one command (it runs in
 * its extension, names its own shell, or uses variables whose value depends on the editor's
 * state) is refused; the Tasks menu runs those.
 */
import { CodedError, ErrorCode } from '../../protocol';
import type { TaskInfo } from '../../core/host';
import type { ResolvedPath } from '../../core/paths';
import { jsonResult, type Preparation } from '../../core/tool';
import { commandOutcome } from '../terminal/terminalOutput';
import { assertPlainCommand, commandConsent } from '../support/commandText';
import { locateInWorkspace } from '../support/workspacePaths';
import { defineTasksTool } from '../support/toolGroup';
import { BOOLEAN, objectOutput, STRING } from '../support/outputSchemas';
import { taskCommand } from './taskCommand';

interface RunTaskArgs {
  name: string;
  source?: string;
  folder?: string;
  timeoutSeconds?: number;
}

interface RunTaskPreparation extends Preparation {
  task: TaskInfo;
  command: string;
  cwd: ResolvedPath;
  timeoutSeconds: number;
}

export const DEFAULT_TIMEOUT_SECONDS = 120;
export const MAX_TIMEOUT_SECONDS = 600;
export const MAX_OUTPUT_CHARS = 30_000;

export const RunTask = defineTasksTool<RunTaskArgs, RunTaskPreparation>({
  name: 'RunTask',
  description:
    'Run one of the workspace\'s tasks (see ListTasks) by name: the user is shown the task and its exact command and must approve it every time. ' +
    'It runs in a VS Code terminal the user can watch; returns its exit code and output (start and end when long). ' +
    `Stopped after timeoutSeconds (default ${DEFAULT_TIMEOUT_SECONDS}, at most ${MAX_TIMEOUT_SECONDS}). Give source or folder when two tasks share a name.`,
  parameters: {
    type: 'object',
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 500, description: 'The task\'s name, as ListTasks gives it.' },
      source: { type: 'string', minLength: 1, maxLength: 200, description: 'Its source (Workspace, npm, …), when names clash.' },
      folder: { type: 'string', minLength: 1, maxLength: 500, description: 'Its workspace folder\'s name, when names clash.' },
      timeoutSeconds: { type: 'integer', minimum: 1, maximum: MAX_TIMEOUT_SECONDS, description: `Time limit in seconds. Default ${DEFAULT_TIMEOUT_SECONDS}.` },
    },
    required: ['name'],
    additionalProperties: false,
  },
  requiresPermission: true,
  effects: { readOnly: false, destructive: true },
  declineStrategy: 'reject',
  sequential: true,
  outputSchema: objectOutput(
    { task: STRING, source: STRING, command: STRING, cwd: STRING, exitCode: { type: ['integer', 'null'] }, timedOut: BOOLEAN, output: STRING, outputTruncated: BOOLEAN, stopped: BOOLEAN, message: STRING },
    ['task', 'source', 'command', 'cwd', 'exitCode', 'timedOut', 'output'],
  ),

  async prepare(args, ctx) {
    const folders = ctx.host.workspaceFolders();
    const folderName = (t: TaskInfo) => (t.folder !== undefined ? locateInWorkspace(t.folder, folders)?.folder.name : undefined);
    const named = (await ctx.host.listTasks()).filter((t) => t.name === args.name && (args.source === undefined || t.source === args.source) && (args.folder === undefined || folderName(t) === args.folder));
    if (named.length === 0) throw new CodedError(ErrorCode.NotFound, `no task named "${args.name}"${args.source ? ` from ${args.source}` : ''}${args.folder ? ` in ${args.folder}` : ''}; ListTasks lists them`);
    if (named.length > 1) {
      const which = named.slice(0, 5).map((t) => `${t.source}${folderName(t) ? ` in ${folderName(t)}` : ''}`).join(', ');
      throw new CodedError(ErrorCode.InvalidArguments, `name: ${named.length} tasks are named "${args.name}" (${which}); give source or folder`);
    }
    const task = named[0];
    const folder = task.folder ?? folders[0]?.path;
    const { command, cwd: writtenCwd } = taskCommand(task.name, task.execution, folder);
    assertPlainCommand(command, `task "${task.name}"`);
    // The working folder must be inside the workspace, whatever tasks.json says.
    const cwd = await ctx.resolvePath(writtenCwd ?? folder ?? '.');
    const stat = await ctx.host.stat(cwd.absolute);
    if (stat?.kind !== 'directory') throw new CodedError(ErrorCode.NotFound, `task "${task.name}" runs in ${cwd.relative}, which is not a folder`);
    const timeoutSeconds = args.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
    const where = cwd.isFolderRoot ? `the ${cwd.folder.name} folder` : cwd.relative;
    return {
      task,
      command,
      cwd,
      timeoutSeconds,
      prompt: `Run the task "${task.name}" (${task.source}) in ${where}?`,
      detail: commandConsent(command, cwd.relative, timeoutSeconds),
      // Every run is asked about: allowing one never allows the next.
      forcePrompt: true,
    };
  },

  async run(_args, ctx, prepared) {
    if (!prepared || !ctx.permissionGranted) throw new CodedError(ErrorCode.PermissionDenied, 'RunTask runs only after the user allowed it');
    const result = await ctx.host.runCommand(
      { command: prepared.command, cwd: prepared.cwd.absolute, timeoutMs: prepared.timeoutSeconds * 1000, maxOutputChars: MAX_OUTPUT_CHARS * 2 },
      ctx.signal,
    );
    return jsonResult({
      task: prepared.task.name,
      source: prepared.task.source,
      command: prepared.command,
      cwd: prepared.cwd.relative,
      ...commandOutcome(result, MAX_OUTPUT_CHARS),
      ...(result.stopped ? { stopped: true } : {}),
      ...(result.timedOut ? { message: `Stopped after the ${prepared.timeoutSeconds} s time limit.` } : {}),
    });
  },
});
