/**
 * Runs RunInTerminal's approved command in a VS Code terminal that this extension owns (a
 * pseudoterminal): the command runs as a child process of the user's shell (`<shell> -c command`),
 * and the terminal shows the command, its output as it comes and how it ended. The exit code and
 * output come from the process itself.
 *
 * Why not type the command into a shell terminal and read it back through shell integration: typing
 * races the shell's start-up. In CI the shell received " 3)" of `echo catalog-$((40+2)); (exit 3)`,
 * that is, a different command from the one the user approved, and shell integration then reported
 * no exit code. A process started with the exact string has neither problem, and needs no shell
 * integration at all.
 *
 * The time limit, cancellation, Ctrl+C in the terminal and closing the terminal stop the command:
 * its process group gets SIGTERM, then SIGKILL. The terminal stays open for the user to read until
 * the next command starts. Input is not forwarded (stdin is closed, so a command that asks a
 * question gets end-of-file instead of hanging until the time limit).
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { CodedError, ErrorCode } from '../protocol';
import type { RunCommandRequest, RunCommandResult } from '../core/host';
import { OutputCapture } from '../tools/terminalOutput';

/** After SIGTERM, how long before SIGKILL. */
const KILL_GRACE_MS = 1_500;
/** Shells that take `-c <command>`; anything else runs through Node's default (/bin/sh, cmd.exe). */
const DASH_C_SHELLS = new Set(['bash', 'zsh', 'ksh', 'mksh', 'sh', 'dash', 'fish', 'pwsh', 'powershell']);
/** Variables of the extension host that would change how a command behaves (an Electron app run as Node). */
const HOST_ONLY_ENV = ['ELECTRON_RUN_AS_NODE', 'ELECTRON_NO_ATTACH_CONSOLE', 'VSCODE_IPC_HOOK', 'VSCODE_IPC_HOOK_EXTHOST', 'VSCODE_HANDLES_UNCAUGHT_ERRORS'];

export class TerminalRunner implements vscode.Disposable {
  /** Terminals of commands that ended: kept for the user to read, closed when the next command starts. */
  private finished: vscode.Terminal[] = [];
  private readonly running = new Set<{ stop(): void }>();

  run(request: RunCommandRequest, signal: AbortSignal): Promise<RunCommandResult> {
    for (const t of this.finished.splice(0)) t.dispose();
    if (signal.aborted) return Promise.reject(new CodedError(ErrorCode.Cancelled, 'the call was cancelled'));
    return new Promise<RunCommandResult>((resolve, reject) => {
      const view = new CommandView(request);
      const terminal = vscode.window.createTerminal({
        name: `Client Tools: ${clip(request.command.split('\n')[0], 40)}`,
        pty: view,
        isTransient: true,
        iconPath: new vscode.ThemeIcon('robot'),
      });
      terminal.show(true);

      const ownGroup = process.platform !== 'win32';
      const child = spawn(request.command, {
        shell: userShell(),
        cwd: request.cwd,
        env: commandEnv(),
        detached: ownGroup,
        stdio: ['ignore', 'pipe', 'pipe'],
        windowsHide: true,
      });
      const capture = new OutputCapture(request.maxOutputChars);
      const onOutput = (d: string) => {
        capture.append(d);
        view.output(d);
      };
      child.stdout.setEncoding('utf8').on('data', onOutput);
      child.stderr.setEncoding('utf8').on('data', onOutput);

      let timedOut = false;
      let stopped = false;
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
          stopped = true;
          kill('SIGTERM');
          killTimer ??= setTimeout(() => kill('SIGKILL'), KILL_GRACE_MS);
        },
      };
      view.onStop = handle.stop;
      // The pseudoterminal's close() hears only the user; this also covers code closing it.
      const closed = vscode.window.onDidCloseTerminal((t) => {
        if (t === terminal) handle.stop();
      });
      const limit = setTimeout(() => {
        timedOut = true;
        handle.stop();
      }, request.timeoutMs);
      const cleanup = () => {
        clearTimeout(limit);
        clearTimeout(killTimer);
        signal.removeEventListener('abort', handle.stop);
        this.running.delete(handle);
        view.onStop = undefined;
        closed.dispose();
        this.finished.push(terminal);
      };
      child.once('error', (error) => {
        cleanup();
        view.ended(`could not start: ${error.message}`);
        reject(new CodedError(ErrorCode.ToolFailed, `could not start the command: ${error.message}`));
      });
      child.once('close', (code, sig) => {
        cleanup();
        const exitCode = timedOut || code === null ? undefined : code;
        view.ended(
          timedOut
            ? `stopped at the ${Math.round(request.timeoutMs / 1000)} s time limit`
            : exitCode !== undefined
              ? `exit code ${exitCode}`
              : `${stopped ? 'stopped' : 'ended'}${sig ? ` by ${sig}` : ''}`,
        );
        resolve({ exitCode, output: capture.text(), truncated: capture.truncated, timedOut, via: 'terminal' });
      });
      this.running.add(handle);
      signal.addEventListener('abort', handle.stop, { once: true });
    });
  }

  dispose(): void {
    for (const r of [...this.running]) r.stop();
    for (const t of this.finished.splice(0)) t.dispose();
  }
}

/**
 * What the terminal shows. Writes made before VS Code opens the terminal are kept and shown at
 * open (VS Code drops a pseudoterminal's writes before that), so the process never waits for the UI.
 */
class CommandView implements vscode.Pseudoterminal {
  private readonly writer = new vscode.EventEmitter<string>();
  readonly onDidWrite = this.writer.event;
  /** Set while the command runs: Ctrl+C in the terminal or closing it stops the command. */
  onStop: (() => void) | undefined;
  private pending: string[] | undefined = [];
  private readonly pendingMax = 256 * 1024;
  private pendingChars = 0;
  private toldAboutInput = false;
  /** The output so far ends with a newline (or there is none), so the end line needs no line break. */
  private atLineStart = true;

  constructor(request: RunCommandRequest) {
    const lines = request.command.split('\n');
    this.write(`\x1b[2mClient Tools runs, in ${request.cwd}:\x1b[0m\r\n`);
    for (const [i, line] of lines.entries()) this.write(`\x1b[1m${i === 0 ? '$' : '>'} ${line}\x1b[0m\r\n`);
  }

  open(): void {
    const pending = this.pending ?? [];
    this.pending = undefined;
    for (const chunk of pending) this.writer.fire(chunk);
  }

  close(): void {
    this.onStop?.();
  }

  handleInput(data: string): void {
    if (!this.onStop) return;
    if (data.includes('\x03')) {
      this.write('^C\r\n');
      this.onStop();
    } else if (!this.toldAboutInput) {
      this.toldAboutInput = true;
      this.write('\x1b[2m[input is not passed to the command; Ctrl+C stops it]\x1b[0m\r\n');
    }
  }

  output(text: string): void {
    if (text === '') return;
    this.atLineStart = text.endsWith('\n');
    this.write(text.replace(/\r?\n/g, '\r\n'));
  }

  ended(how: string): void {
    this.write(`${this.atLineStart ? '' : '\r\n'}\x1b[2m[${how}]\x1b[0m\r\n`);
  }

  private write(text: string): void {
    if (!this.pending) {
      this.writer.fire(text);
      return;
    }
    // Not opened yet: keep a bounded amount (the result keeps the full capped output either way).
    if (this.pendingChars >= this.pendingMax) return;
    this.pending.push(text);
    this.pendingChars += text.length;
  }
}

/** The user's default terminal shell when it takes `-c`, else Node's default for `shell: true`. */
function userShell(): string | true {
  const shell = vscode.env.shell;
  if (!shell) return true;
  const name = path.basename(shell).toLowerCase().replace(/\.exe$/, '');
  return DASH_C_SHELLS.has(name) ? shell : true;
}

function commandEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const key of HOST_ONLY_ENV) delete env[key];
  return env;
}

function clip(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}
