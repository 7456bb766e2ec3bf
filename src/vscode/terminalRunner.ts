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
 * Ctrl+C in the terminal sends the command's process group SIGINT; the time limit, cancellation and
 * closing the terminal send SIGTERM; SIGKILL follows after a grace period (at once when the extension
 * shuts down). The call ends when the shell exits, not when every process holding its output does,
 * so a job left in the background (`server &`) does not hold it; closing the terminal hangs such a
 * job up, as closing a real terminal would. On Windows, which has no process groups, `taskkill /T`
 * ends the tree. The terminal stays open for the user to read until the next command starts.
 * Input is not forwarded (stdin is closed, so a command that asks a question gets end-of-file
 * instead of hanging until the time limit).
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { CodedError, ErrorCode } from '../protocol';
import type { RunCommandRequest, RunCommandResult } from '../core/host';
import { safe, uiText } from '../core/uiText';
import { OutputCapture } from '../tools/terminal/terminalOutput';
import * as ui from './ui';

/** After SIGINT or SIGTERM, how long before SIGKILL. */
const KILL_GRACE_MS = 1_500;
/** Shells that take `-c <command>`; anything else runs through Node's default (/bin/sh, cmd.exe). */
const DASH_C_SHELLS = new Set(['bash', 'zsh', 'ksh', 'mksh', 'sh', 'dash', 'fish', 'pwsh', 'powershell']);
/** Variables of the extension host that would change how a command behaves (an Electron app run as Node). */
const HOST_ONLY_ENV = ['ELECTRON_RUN_AS_NODE', 'ELECTRON_NO_ATTACH_CONSOLE', 'VSCODE_IPC_HOOK', 'VSCODE_IPC_HOOK_EXTHOST', 'VSCODE_HANDLES_UNCAUGHT_ERRORS'];

/** After the shell exits, how long its output may take to arrive (a background job can hold the pipes open for good). */
const DRAIN_MS = 500;

/**
 * Process groups of commands whose terminals are still open: still running (killed when the
 * extension host exits) or finished with background jobs perhaps left (hung up, as closing a real
 * terminal would). A detached group has no controlling terminal, so nothing else would stop them.
 */
const liveGroups = new Map<number, 'running' | 'finished'>();
process.once('exit', () => {
  for (const [pgid, state] of liveGroups) signalGroup(pgid, state === 'running' ? 'SIGKILL' : 'SIGHUP');
});

interface Running {
  /** Ctrl+C sends SIGINT, anything else SIGTERM; SIGKILL follows after a grace period (at once with `now`). */
  stop(how: 'interrupt' | 'terminate' | 'now'): void;
}

export class TerminalRunner implements vscode.Disposable {
  /** Terminals of commands that ended: kept for the user to read, closed when the next command starts. */
  private finished: vscode.Terminal[] = [];
  private readonly running = new Set<Running>();
  private disposed = false;

  run(request: RunCommandRequest, signal: AbortSignal): Promise<RunCommandResult> {
    for (const t of this.finished.splice(0)) t.dispose();
    if (signal.aborted) return Promise.reject(new CodedError(ErrorCode.Cancelled, 'the call was cancelled'));
    return new Promise<RunCommandResult>((resolve, reject) => {
      const view = new CommandView(request);
      const terminal = ui.openTerminal({
        name: safe`Client Tools: ${uiText(request.command.split('\n')[0], { maxLength: 40 })}`,
        pty: view,
        isTransient: true,
        iconPath: new vscode.ThemeIcon('robot'),
      });
      terminal.show(true);

      const ownGroup = process.platform !== 'win32';
      let child: ChildProcessByStdio<null, Readable, Readable>;
      try {
        child = spawn(request.command, {
          shell: userShell(),
          cwd: request.cwd,
          env: commandEnv(),
          detached: ownGroup,
          stdio: ['ignore', 'pipe', 'pipe'],
          windowsHide: true,
        });
      } catch (e) {
        view.ended(`could not start: ${(e as Error).message}`);
        this.keep(terminal);
        reject(new CodedError(ErrorCode.ToolFailed, `could not start the command: ${(e as Error).message}`));
        return;
      }
      const pgid = ownGroup ? child.pid : undefined;
      if (pgid !== undefined) liveGroups.set(pgid, 'running');
      const capture = new OutputCapture(request.maxOutputChars);
      const onOutput = (d: string) => {
        capture.append(d);
        view.output(d);
      };
      child.stdout.setEncoding('utf8').on('data', onOutput);
      child.stderr.setEncoding('utf8').on('data', onOutput);

      let timedOut = false;
      let stopped = false;
      let settled = false;
      let killTimer: NodeJS.Timeout | undefined;
      let drainTimer: NodeJS.Timeout | undefined;
      const kill = (sig: NodeJS.Signals) => {
        if (pgid !== undefined) signalGroup(pgid, sig);
        else if (process.platform === 'win32' && child.pid !== undefined) killTree(child.pid);
        else child.kill(sig);
      };
      const handle: Running = {
        stop: (how) => {
          if (settled) return;
          stopped = true;
          if (how === 'now') {
            kill('SIGKILL');
            return;
          }
          kill(how === 'interrupt' ? 'SIGINT' : 'SIGTERM');
          killTimer ??= setTimeout(() => kill('SIGKILL'), KILL_GRACE_MS);
        },
      };
      const onAbort = () => handle.stop('terminate');
      view.onInterrupt = () => handle.stop('interrupt');
      // The pseudoterminal's close() hears only the user; this hears code closing it too. Closing
      // the terminal stops the command, or hangs up what a finished one left in the background.
      const closed = vscode.window.onDidCloseTerminal((t) => {
        if (t !== terminal) return;
        closed.dispose();
        if (!settled) handle.stop('terminate');
        else if (pgid !== undefined && liveGroups.get(pgid) === 'finished') {
          liveGroups.delete(pgid);
          signalGroup(pgid, 'SIGHUP');
        }
      });
      const limit = setTimeout(() => {
        timedOut = true;
        handle.stop('terminate');
      }, request.timeoutMs);
      const settle = (outcome: { exitCode: number | null; sig: NodeJS.Signals | null } | { error: Error }) => {
        if (settled) return;
        settled = true;
        clearTimeout(limit);
        clearTimeout(killTimer);
        clearTimeout(drainTimer);
        signal.removeEventListener('abort', onAbort);
        this.running.delete(handle);
        view.onInterrupt = undefined;
        if (pgid !== undefined) liveGroups.set(pgid, 'finished');
        // Whatever still holds the pipes (a background job) no longer feeds this call.
        child.stdout.destroy();
        child.stderr.destroy();
        this.keep(terminal);
        if ('error' in outcome) {
          view.ended(`could not start: ${outcome.error.message}`);
          reject(new CodedError(ErrorCode.ToolFailed, `could not start the command: ${outcome.error.message}`));
          return;
        }
        const exitCode = timedOut || outcome.exitCode === null ? undefined : outcome.exitCode;
        view.ended(
          timedOut
            ? `stopped at the ${Math.round(request.timeoutMs / 1000)} s time limit`
            : exitCode !== undefined
              ? `exit code ${exitCode}${stopped ? ', after it was asked to stop' : ''}`
              : `${stopped ? 'stopped' : 'ended'}${outcome.sig ? ` by ${outcome.sig}` : ''}`,
        );
        resolve({ exitCode, output: capture.text(), truncated: capture.truncated, timedOut, via: 'terminal', ...(stopped && !timedOut ? { stopped: true } : {}) });
      };
      child.once('error', (error) => settle({ error }));
      // The shell's exit ends the call; its output gets DRAIN_MS more unless the pipes close first
      // ('close'). Waiting for 'close' alone would wait for any background job that keeps them open.
      child.once('exit', (code, sig) => {
        const outcome = { exitCode: code, sig };
        child.once('close', () => settle(outcome));
        drainTimer = setTimeout(() => settle(outcome), DRAIN_MS);
      });
      this.running.add(handle);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  dispose(): void {
    this.disposed = true;
    // The extension host may be on its way out: no grace period it might not live to see.
    for (const r of [...this.running]) r.stop('now');
    for (const t of this.finished.splice(0)) t.dispose();
  }

  private keep(terminal: vscode.Terminal): void {
    if (this.disposed) terminal.dispose();
    else this.finished.push(terminal);
  }
}

/**
 * What the terminal shows. Writes made before VS Code opens the terminal are kept and shown at
 * open (VS Code drops a pseudoterminal's writes before that), so the process never waits for the UI.
 */
class CommandView implements vscode.Pseudoterminal {
  private readonly writer = new vscode.EventEmitter<string>();
  readonly onDidWrite = this.writer.event;
  /** Set while the command runs: Ctrl+C in the terminal interrupts it. */
  onInterrupt: (() => void) | undefined;
  private pending: string[] | undefined = [];
  private readonly pendingMax = 256 * 1024;
  private pendingChars = 0;
  private toldAboutInput = false;
  /** The output so far ends with a newline (or there is none), so the end line needs no line break. */
  private atLineStart = true;

  constructor(request: RunCommandRequest) {
    const lines = request.command.split('\n');
    this.write(`\x1b[2mClient Tools runs, in ${request.cwd}:\x1b[0m\r\n`);
    for (const [i, line] of lines.entries()) this.write(`\x1b[1m${i === 0 ? '$' : '>'} ${visibleControls(line)}\x1b[0m\r\n`);
  }

  open(): void {
    const pending = this.pending ?? [];
    this.pending = undefined;
    for (const chunk of pending) this.writer.fire(chunk);
  }

  close(): void {
    // Closing is handled through onDidCloseTerminal, which also hears code closing the terminal.
    this.writer.dispose();
  }

  handleInput(data: string): void {
    if (!this.onInterrupt) return;
    if (data.includes('\x03')) {
      this.write('^C\r\n');
      this.onInterrupt();
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
  const env: NodeJS.ProcessEnv = { PYTHONUNBUFFERED: '1', ...process.env };
  for (const key of HOST_ONLY_ENV) delete env[key];
  return env;
}

/** Control characters as ^X, so the echoed command cannot move the cursor or hide part of itself. */
function visibleControls(text: string): string {
  return text.replace(/[\u0000-\u0008\u000a-\u001f\u007f]/g, (c) => (c === '\u007f' ? '^?' : `^${String.fromCharCode(c.charCodeAt(0) + 64)}`));
}

function signalGroup(pgid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(-pgid, sig);
  } catch {
    // Gone already.
  }
}

/** Windows has no process groups: end the shell and every process under it. */
function killTree(pid: number): void {
  spawn('taskkill', ['/pid', String(pid), '/T', '/F'], { windowsHide: true, stdio: 'ignore' }).on('error', () => undefined);
}
