/**
 * Runs RunInTerminal's approved command. In a VS Code terminal with shell integration when one comes
 * up within a few seconds (the user sees the command and its output; the exit code and output come
 * from the shell integration), otherwise as a child process of the extension host with its output
 * captured. Multi-line commands always take the child-process path, because a terminal would run
 * each line as its own command. The time limit and cancellation stop the command (Ctrl+C, then the
 * terminal is closed; for a process, its process group gets SIGTERM, then SIGKILL).
 */
import { spawn } from 'node:child_process';
import * as vscode from 'vscode';
import { CodedError, ErrorCode } from '../protocol';
import type { RunCommandRequest, RunCommandResult } from '../core/host';
import { OutputCapture } from '../tools/terminalOutput';

/** How long a new terminal may take to report shell integration. */
const SHELL_INTEGRATION_WAIT_MS = 5_000;
/** After Ctrl+C or SIGTERM, how long before the terminal is closed or SIGKILL is sent. */
const KILL_GRACE_MS = 1_500;
/** After the command ended, how long to wait for the last output. */
const DRAIN_MS = 500;

export class TerminalRunner implements vscode.Disposable {
  /** Terminals of commands that ended: kept for the user to read, closed when the next command starts. */
  private finished: vscode.Terminal[] = [];
  private readonly running = new Set<{ stop(): void }>();

  async run(request: RunCommandRequest, signal: AbortSignal): Promise<RunCommandResult> {
    for (const t of this.finished.splice(0)) t.dispose();
    if (!request.command.includes('\n')) {
      const terminal = vscode.window.createTerminal({ name: `Client Tools: ${clip(request.command, 40)}`, cwd: request.cwd, isTransient: true });
      const integration = await waitForShellIntegration(terminal, signal);
      if (integration) {
        try {
          return await this.runInTerminal(terminal, integration, request, signal);
        } finally {
          this.finished.push(terminal);
        }
      }
      terminal.dispose();
      if (signal.aborted) throw new CodedError(ErrorCode.Cancelled, 'the call was cancelled');
    }
    return this.runProcess(request, signal);
  }

  dispose(): void {
    for (const r of [...this.running]) r.stop();
    for (const t of this.finished.splice(0)) t.dispose();
  }

  private runInTerminal(
    terminal: vscode.Terminal,
    integration: vscode.TerminalShellIntegration,
    request: RunCommandRequest,
    signal: AbortSignal,
  ): Promise<RunCommandResult> {
    terminal.show(true);
    const capture = new OutputCapture(request.maxOutputChars);
    const execution = integration.executeCommand(request.command);
    const reading = (async () => {
      for await (const data of execution.read()) capture.append(data);
    })().catch(() => undefined);
    return new Promise<RunCommandResult>((resolve) => {
      let timedOut = false;
      let done = false;
      const subscriptions: vscode.Disposable[] = [];
      let killTimer: NodeJS.Timeout | undefined;
      const handle = {
        stop: () => {
          terminal.sendText('\u0003', false);
          killTimer ??= setTimeout(() => terminal.dispose(), KILL_GRACE_MS);
        },
      };
      const finish = async (exitCode: number | undefined) => {
        if (done) return;
        done = true;
        clearTimeout(limit);
        clearTimeout(killTimer);
        signal.removeEventListener('abort', handle.stop);
        this.running.delete(handle);
        for (const s of subscriptions) s.dispose();
        await Promise.race([reading, delay(DRAIN_MS)]);
        resolve({ exitCode: timedOut ? undefined : exitCode, output: capture.text(), truncated: capture.truncated, timedOut, via: 'terminal' });
      };
      const limit = setTimeout(() => {
        timedOut = true;
        handle.stop();
      }, request.timeoutMs);
      subscriptions.push(
        vscode.window.onDidEndTerminalShellExecution((e) => {
          if (e.execution === execution) void finish(e.exitCode);
        }),
        vscode.window.onDidCloseTerminal((t) => {
          if (t === terminal) void finish(t.exitStatus?.code);
        }),
      );
      this.running.add(handle);
      signal.addEventListener('abort', handle.stop, { once: true });
    });
  }

  private runProcess(request: RunCommandRequest, signal: AbortSignal): Promise<RunCommandResult> {
    return new Promise<RunCommandResult>((resolve, reject) => {
      const ownGroup = process.platform !== 'win32';
      const child = spawn(request.command, { shell: true, cwd: request.cwd, detached: ownGroup, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
      const capture = new OutputCapture(request.maxOutputChars);
      child.stdout.setEncoding('utf8').on('data', (d: string) => capture.append(d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => capture.append(d));
      let timedOut = false;
      let killTimer: NodeJS.Timeout | undefined;
      const kill = (sig: NodeJS.Signals) => {
        try {
          if (ownGroup && child.pid !== undefined) process.kill(-child.pid, sig);
          else child.kill(sig);
        } catch {
          // Already gone.
        }
      };
      const handle = {
        stop: () => {
          kill('SIGTERM');
          killTimer ??= setTimeout(() => kill('SIGKILL'), KILL_GRACE_MS);
        },
      };
      const limit = setTimeout(() => {
        timedOut = true;
        handle.stop();
      }, request.timeoutMs);
      const cleanup = () => {
        clearTimeout(limit);
        clearTimeout(killTimer);
        signal.removeEventListener('abort', handle.stop);
        this.running.delete(handle);
      };
      child.once('error', (error) => {
        cleanup();
        reject(new CodedError(ErrorCode.ToolFailed, `could not start the command: ${error.message}`));
      });
      child.once('close', (code) => {
        cleanup();
        resolve({ exitCode: timedOut || code === null ? undefined : code, output: capture.text(), truncated: capture.truncated, timedOut, via: 'process' });
      });
      this.running.add(handle);
      signal.addEventListener('abort', handle.stop, { once: true });
    });
  }
}

function waitForShellIntegration(terminal: vscode.Terminal, signal: AbortSignal): Promise<vscode.TerminalShellIntegration | undefined> {
  if (terminal.shellIntegration) return Promise.resolve(terminal.shellIntegration);
  return new Promise((resolve) => {
    const done = (value: vscode.TerminalShellIntegration | undefined) => {
      clearTimeout(timer);
      subscription.dispose();
      signal.removeEventListener('abort', onAbort);
      resolve(value);
    };
    const onAbort = () => done(undefined);
    const subscription = vscode.window.onDidChangeTerminalShellIntegration((e) => {
      if (e.terminal === terminal) done(e.shellIntegration);
    });
    const timer = setTimeout(() => done(undefined), SHELL_INTEGRATION_WAIT_MS);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function clip(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}
