/**
 * RunInTerminal: runs a shell command in the workspace after the user approved that exact command.
 * The prompt shows the command verbatim and is asked every time (an earlier "allow" never covers
 * another command). The host runs exactly that string with the user's shell and shows it in a VS
 * Code terminal as it runs; output (capped) and exit code come back, and the time limit ends it.
 */
import { CodedError, ErrorCode } from '../../protocol';
import type { ResolvedPath } from '../../core/paths';
import { jsonResult, type Preparation } from '../../core/tool';
import { commandOutcome } from './terminalOutput';
import { assertPlainCommand, codeSpan, commandConsent } from '../support/commandText';
import { defineTerminalTool } from '../support/toolGroup';
import { pathParameter } from '../support/parameters';
import { BOOLEAN, objectOutput, STRING } from '../support/outputSchemas';

interface RunInTerminalArgs {
  command: string;
  cwd?: string;
  timeoutSeconds?: number;
}

interface RunPreparation extends Preparation {
  cwd: ResolvedPath;
  timeoutSeconds: number;
}

export const DEFAULT_TIMEOUT_SECONDS = 60;
export const MAX_TIMEOUT_SECONDS = 600;
export const MAX_OUTPUT_CHARS = 30_000;
/** Longest command shown in the prompt's one line; longer or multi-line ones are in the detail only. */
const INLINE_COMMAND_CHARS = 150;

export const RunInTerminal = defineTerminalTool<RunInTerminalArgs, RunPreparation>({
  name: 'RunInTerminal',
  description:
    'Run a shell command in the workspace (in a VS Code terminal the user can watch) and return its exit code and output (the start and the end ' +
    `when long, at most ${MAX_OUTPUT_CHARS} characters). The user must approve the exact command every time. ` +
    `cwd is a workspace-relative folder (default: the workspace folder). The command is stopped after timeoutSeconds (default ${DEFAULT_TIMEOUT_SECONDS}, at most ${MAX_TIMEOUT_SECONDS}).`,
  parameters: {
    type: 'object',
    properties: {
      command: { type: 'string', minLength: 1, maxLength: 10_000, description: 'The shell command line.' },
      cwd: pathParameter('Workspace-relative folder to run in. Default: the workspace folder.'),
      timeoutSeconds: { type: 'integer', minimum: 1, maximum: MAX_TIMEOUT_SECONDS, description: `Time limit in seconds. Default ${DEFAULT_TIMEOUT_SECONDS}.` },
    },
    required: ['command'],
    additionalProperties: false,
  },
  requiresPermission: true,
  editableArgument: 'command',
  effects: { readOnly: false, destructive: true },
  declineStrategy: 'reject',
  outputSchema: objectOutput({ command: STRING, cwd: STRING, exitCode: { type: ['integer', 'null'] }, timedOut: BOOLEAN, output: STRING, outputTruncated: BOOLEAN, ranIn: { enum: ['terminal', 'process'] }, stopped: BOOLEAN, message: STRING }, ['command', 'cwd', 'exitCode', 'timedOut', 'output', 'ranIn']),
  sequential: true,

  async prepare(args, ctx) {
    const command = args.command;
    if (command.trim() === '') throw new CodedError(ErrorCode.InvalidArguments, 'command: is empty');
    assertPlainCommand(command, 'command');
    const cwd = await ctx.resolvePath(args.cwd ?? '.');
    const stat = await ctx.host.stat(cwd.absolute);
    if (!stat) throw new CodedError(ErrorCode.NotFound, `cwd: ${cwd.relative} does not exist`);
    if (stat.kind !== 'directory') throw new CodedError(ErrorCode.InvalidArguments, `cwd: ${cwd.relative} is not a folder`);
    const timeoutSeconds = args.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
    const where = cwd.isFolderRoot ? `the ${cwd.folder.name} folder` : cwd.relative;
    const inline = !command.includes('\n') && command.length <= INLINE_COMMAND_CHARS;
    const lineCount = command.split('\n').length;
    return {
      cwd,
      timeoutSeconds,
      prompt: inline ? `Run ${codeSpan(command)} in ${where}?` : `Run this ${lineCount > 1 ? `${lineCount}-line ` : ''}command in ${where}?`,
      detail: commandConsent(command, cwd.relative, timeoutSeconds),
      // Every command is asked about: allowing one never allows the next.
      forcePrompt: true,
    };
  },

  async run(args, ctx, prepared) {
    if (!prepared || !ctx.permissionGranted) throw new CodedError(ErrorCode.PermissionDenied, 'RunInTerminal runs only after the user allowed it');
    const result = await ctx.host.runCommand(
      { command: args.command, cwd: prepared.cwd.absolute, timeoutMs: prepared.timeoutSeconds * 1000, maxOutputChars: MAX_OUTPUT_CHARS * 2 },
      ctx.signal,
    );
    return jsonResult({
      command: args.command,
      cwd: prepared.cwd.relative,
      ...commandOutcome(result, MAX_OUTPUT_CHARS),
      ranIn: result.via,
      ...(result.stopped ? { stopped: true } : {}),
      ...(result.timedOut
        ? { message: `Stopped after the ${prepared.timeoutSeconds} s time limit.` }
        : result.stopped
          ? { message: 'The user stopped the command before it finished (Ctrl+C in its terminal, or closing it), or the call was cancelled; judge the outcome by the output.' }
          : result.exitCode === undefined
            ? { message: 'The command ended by a signal without an exit code; judge the outcome by the output.' }
            : {}),
    });
  },
});
