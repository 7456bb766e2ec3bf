/**
 * The Tasks group's part of `IdeHost` on the VS Code API (VsCodeIdeHost delegates here): the
 * workspace's tasks from `vscode.tasks.fetchTasks()` as plain data (how each runs, as written).
 * Running one is RunInTerminal's runner (terminalRunner.ts), with the command the user approved.
 */
import * as vscode from 'vscode';
import type { TaskArgument, TaskExecution, TaskInfo } from '../../core/host';

const QUOTING: Record<number, 'escape' | 'strong' | 'weak'> = {
  [vscode.ShellQuoting.Escape]: 'escape',
  [vscode.ShellQuoting.Strong]: 'strong',
  [vscode.ShellQuoting.Weak]: 'weak',
};

export async function listTasks(): Promise<TaskInfo[]> {
  return (await vscode.tasks.fetchTasks()).map((t) => {
    const folder = typeof t.scope === 'object' && t.scope.uri.scheme === 'file' ? t.scope.uri.fsPath : undefined;
    return {
      name: t.name,
      source: t.source,
      ...(folder !== undefined ? { folder } : {}),
      ...(t.group ? { group: t.group.id } : {}),
      ...(t.detail ? { detail: t.detail } : {}),
      execution: executionOf(t.execution),
    };
  });
}

function executionOf(e: vscode.Task['execution']): TaskExecution {
  if (e instanceof vscode.ShellExecution) {
    return {
      kind: 'shell',
      ...(e.commandLine !== undefined ? { commandLine: e.commandLine } : {}),
      ...(e.command !== undefined ? { command: argument(e.command) } : {}),
      args: (e.args ?? []).map(argument),
      ...options(e.options),
      ...(e.options?.executable !== undefined ? { customShell: true } : {}),
    };
  }
  if (e instanceof vscode.ProcessExecution) return { kind: 'process', command: e.process, args: e.args, ...options(e.options) };
  return { kind: 'custom' };
}

function options(o: vscode.ShellExecutionOptions | vscode.ProcessExecutionOptions | undefined): { cwd?: string; env?: Record<string, string> } {
  return { ...(o?.cwd !== undefined ? { cwd: o.cwd } : {}), ...(o?.env ? { env: o.env } : {}) };
}

function argument(a: string | vscode.ShellQuotedString): TaskArgument {
  return typeof a === 'string' ? a : { value: a.value, quoting: QUOTING[a.quoting] ?? 'strong' };
}
