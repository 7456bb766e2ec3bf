/**
 * A task as the exact shell command RunTask shows the user and runs: the command line, or the
 * command and its arguments quoted the way VS Code quotes them for a POSIX shell; the environment
 * the task sets, as `export` statements in front; the variables a task may use that mean the same
 * here (`${workspaceFolder}`, `${workspaceFolderBasename}`, `${pathSeparator}`) put in. A task that
 * uses any other variable (input, command, config, the active file) is refused: what would run
 * depends on what the editor is showing, and cannot be stated in advance.
 */
import * as path from 'node:path';
import { CodedError, ErrorCode } from '../../protocol';
import type { TaskArgument, TaskExecution } from '../../core/host';

export interface TaskCommand {
  /** Exactly what runs. */
  command: string;
  /** The working folder, variables put in; undefined for the task's folder. */
  cwd?: string;
}

/** Characters that need no quoting in a POSIX shell word. */
const PLAIN = /^[A-Za-z0-9_@%+=:,./-]+$/;
const VARIABLE = /\$\{([^}]*)\}/g;

export function taskCommand(name: string, execution: TaskExecution, folder: string | undefined, platform: NodeJS.Platform = process.platform): TaskCommand {
  if (execution.kind === 'custom') {
    throw new CodedError(ErrorCode.ToolFailed, `task "${name}" runs inside its extension, not as a command that can be shown first; run it from the Tasks menu`);
  }
  if (execution.customShell) throw new CodedError(ErrorCode.ToolFailed, `task "${name}" names a shell of its own; RunTask runs commands in your default shell only`);
  if (platform === 'win32') throw new CodedError(ErrorCode.ToolFailed, 'RunTask builds POSIX shell commands; on Windows run the task from the Tasks menu');
  const put = (text: string) => substitute(text, name, folder);
  let line: string;
  const args = execution.args ?? [];
  if (execution.commandLine !== undefined) line = put(execution.commandLine);
  // A shell task's command without arguments is a command line as written (VS Code passes it on unquoted).
  else if (execution.kind === 'shell' && typeof execution.command === 'string' && args.length === 0) line = put(execution.command);
  else if (execution.command !== undefined) line = [execution.command, ...args].map((a) => quote(a, put)).join(' ');
  else throw new CodedError(ErrorCode.ToolFailed, `task "${name}" has no command`);
  const env = Object.entries(execution.env ?? {});
  for (const [key] of env) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) throw new CodedError(ErrorCode.ToolFailed, `task "${name}" sets an environment variable with an unusual name (${JSON.stringify(key).slice(0, 80)})`);
  }
  const exports = env.map(([key, value]) => `export ${key}=${strong(put(value))}; `).join('');
  return { command: `${exports}${line}`, ...(execution.cwd !== undefined ? { cwd: put(execution.cwd) } : {}) };
}

function substitute(text: string, name: string, folder: string | undefined): string {
  return text.replace(VARIABLE, (whole, variable: string) => {
    switch (variable) {
      case 'workspaceFolder':
      case 'workspaceRoot':
        if (folder === undefined) break;
        return folder;
      case 'workspaceFolderBasename':
        if (folder === undefined) break;
        return path.basename(folder);
      case 'pathSeparator':
      case '/':
        return path.sep;
      default:
    }
    throw new CodedError(ErrorCode.ToolFailed, `task "${name}" uses ${whole.slice(0, 80)}, whose value RunTask cannot state before it runs; run it from the Tasks menu`);
  });
}

function quote(arg: TaskArgument, put: (text: string) => string): string {
  if (typeof arg === 'string') {
    const value = put(arg);
    return value === '' || !PLAIN.test(value) ? strong(value) : value;
  }
  const value = put(arg.value);
  switch (arg.quoting) {
    case 'strong':
      return strong(value);
    case 'weak':
      return `"${value.replace(/(["\\])/g, '\\$1')}"`;
    case 'escape':
      return value.replace(/([^A-Za-z0-9_@%+=:,./-])/g, '\\$1');
  }
}

/** Single quotes: nothing inside is interpreted. */
function strong(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
