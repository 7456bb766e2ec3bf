/**
 * Runs one approved shell command as a supervised child process, in plain Node: what RunInTerminal's
 * VS Code terminal shows (src/vscode/host/terminalRunner.ts) and what its result reports both come from
 * here, so all of it is testable on real processes without an editor.
 *
 * The command runs as `<shell> -c command` in a process group of its own. Ctrl+C sends the group
 * SIGINT; the time limit, cancellation and closing the terminal send SIGTERM; SIGKILL follows after
 * a grace period (at once with `stop('now')`, when the extension shuts down). The call ends when the
 * shell exits, not when every process holding its output does, so a job left in the background
 * (`server &`) does not hold it; `hangUp()` then ends such a job, as closing a real terminal would.
 * On Windows, which has no process groups, `taskkill /T` ends the tree. Stdin is closed, so a command
 * that asks a question gets end-of-file instead of hanging until the time limit.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import * as path from 'node:path';
import { OutputCapture } from './terminalOutput';

/** After SIGINT or SIGTERM, how long before SIGKILL. */
export const KILL_GRACE_MS = 1_500;
/** After the shell exits, how long its output may take to arrive (a background job can hold the pipes open for good). */
export const DRAIN_MS = 500;
/** Shells that take `-c <command>`; anything else runs through Node's default (/bin/sh, cmd.exe). */
const DASH_C_SHELLS = new Set(['bash', 'zsh', 'ksh', 'mksh', 'sh', 'dash', 'fish', 'pwsh', 'powershell']);
/** Variables of the extension host that would change how a command behaves (an Electron app run as Node) or hand it the host's IPC sockets. */
export const HOST_ONLY_ENV = ['ELECTRON_RUN_AS_NODE', 'ELECTRON_NO_ATTACH_CONSOLE', 'VSCODE_IPC_HOOK', 'VSCODE_IPC_HOOK_EXTHOST', 'VSCODE_HANDLES_UNCAUGHT_ERRORS'];

/**
 * Process groups of commands still supervised: running (killed when this process exits) or finished
 * with background jobs perhaps left (hung up). A detached group has no controlling terminal, so
 * nothing else would stop them.
 */
const liveGroups = new Map<number, 'running' | 'finished'>();
process.once('exit', () => {
  for (const [pgid, state] of liveGroups) signalGroup(pgid, state === 'running' ? 'SIGKILL' : 'SIGHUP');
});

export interface ProcessRequest {
  /** Exactly what the user approved. */
  command: string;
  cwd: string;
  /** A shell that takes `-c`, or `true` for Node's default (see `commandShell`). */
  shell: string | true;
  timeoutMs: number;
  /** Output kept, in characters (start and end kept when there is more). */
  maxOutputChars: number;
}

/** How a supervised command ended. */
export type ProcessEnd =
  | {
      started: true;
      /** Undefined when the command was stopped at the time limit or ended by a signal. */
      exitCode: number | undefined;
      /** The signal that ended the shell, if one did. */
      signal: NodeJS.Signals | null;
      output: string;
      truncated: boolean;
      timedOut: boolean;
      /** `stop()` was called (Ctrl+C, cancellation, closing the terminal) or the time limit struck. */
      stopped: boolean;
    }
  | { started: false; error: Error };

export interface SuperviseOptions {
  /** Aborting stops the command as `stop('terminate')` does. */
  signal: AbortSignal;
  /** Each chunk of stdout and stderr as it comes (for a live view). */
  onOutput?: (text: string) => void;
  /** How long output may still arrive after the shell exits; default `DRAIN_MS`. */
  drainMs?: number;
}

export class SupervisedProcess {
  /** Settles once, never rejects. */
  readonly ended: Promise<ProcessEnd>;
  private child: ChildProcessByStdio<null, Readable, Readable> | undefined;
  private pgid: number | undefined;
  private settled = false;
  private stopped = false;
  private timedOut = false;
  private killTimer: NodeJS.Timeout | undefined;

  constructor(request: ProcessRequest, options: SuperviseOptions) {
    this.ended = new Promise((resolve) => this.start(request, options, resolve));
  }

  /** Ctrl+C sends SIGINT, anything else SIGTERM; SIGKILL follows after a grace period (at once with `now`). */
  stop(how: 'interrupt' | 'terminate' | 'now'): void {
    if (this.settled || !this.child) return;
    this.stopped = true;
    if (how === 'now') {
      this.kill('SIGKILL');
      return;
    }
    this.kill(how === 'interrupt' ? 'SIGINT' : 'SIGTERM');
    this.killTimer ??= setTimeout(() => this.kill('SIGKILL'), KILL_GRACE_MS);
  }

  /** What closing its terminal does: stops the command if it runs, or hangs up what a finished one left in the background. */
  hangUp(): void {
    if (!this.settled) {
      this.stop('terminate');
      return;
    }
    if (this.pgid === undefined || liveGroups.get(this.pgid) !== 'finished') return;
    liveGroups.delete(this.pgid);
    signalGroup(this.pgid, 'SIGHUP');
  }

  private start(request: ProcessRequest, { signal, onOutput, drainMs = DRAIN_MS }: SuperviseOptions, resolve: (end: ProcessEnd) => void): void {
    const ownGroup = process.platform !== 'win32';
    let child: ChildProcessByStdio<null, Readable, Readable>;
    try {
      child = spawn(request.command, { shell: request.shell, cwd: request.cwd, env: commandEnv(), detached: ownGroup, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
    } catch (e) {
      this.settled = true;
      resolve({ started: false, error: e as Error });
      return;
    }
    this.child = child;
    this.pgid = ownGroup ? child.pid : undefined;
    if (this.pgid !== undefined) liveGroups.set(this.pgid, 'running');
    const capture = new OutputCapture(request.maxOutputChars);
    const append = (d: string) => {
      capture.append(d);
      onOutput?.(d);
    };
    child.stdout.setEncoding('utf8').on('data', append);
    child.stderr.setEncoding('utf8').on('data', append);

    let drainTimer: NodeJS.Timeout | undefined;
    const onAbort = () => this.stop('terminate');
    const limit = setTimeout(() => {
      this.timedOut = true;
      this.stop('terminate');
    }, request.timeoutMs);
    const settle = (outcome: { code: number | null; sig: NodeJS.Signals | null } | { error: Error }) => {
      if (this.settled) return;
      this.settled = true;
      clearTimeout(limit);
      clearTimeout(this.killTimer);
      clearTimeout(drainTimer);
      signal.removeEventListener('abort', onAbort);
      if (this.pgid !== undefined) liveGroups.set(this.pgid, 'finished');
      // Whatever still holds the pipes (a background job) no longer feeds this call.
      child.stdout.destroy();
      child.stderr.destroy();
      if ('error' in outcome) {
        resolve({ started: false, error: outcome.error });
        return;
      }
      const exitCode = this.timedOut || outcome.code === null ? undefined : outcome.code;
      resolve({ started: true, exitCode, signal: outcome.sig, output: capture.text(), truncated: capture.truncated, timedOut: this.timedOut, stopped: this.stopped });
    };
    child.once('error', (error) => settle({ error }));
    // The shell's exit ends the call; its output gets drainMs more unless the pipes close first
    // ('close'). Waiting for 'close' alone would wait for any background job that keeps them open.
    child.once('exit', (code, sig) => {
      child.once('close', () => settle({ code, sig }));
      drainTimer = setTimeout(() => settle({ code, sig }), drainMs);
    });
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  }

  private kill(sig: NodeJS.Signals): void {
    const child = this.child;
    if (!child) return;
    if (this.pgid !== undefined) signalGroup(this.pgid, sig);
    else if (process.platform === 'win32' && child.pid !== undefined) killTree(child.pid);
    else child.kill(sig);
  }
}

/** The user's shell when it takes `-c`, else Node's default for `shell: true`. */
export function commandShell(userShell: string | undefined): string | true {
  if (!userShell) return true;
  const name = path.basename(userShell).toLowerCase().replace(/\.exe$/, '');
  return DASH_C_SHELLS.has(name) ? userShell : true;
}

/** This process's environment without the host's own variables; Python told not to buffer its output. */
export function commandEnv(from: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PYTHONUNBUFFERED: '1', ...from };
  for (const key of HOST_ONLY_ENV) delete env[key];
  return env;
}

/** Signals a process group (ignored when it is gone); the ACP agent process uses it too. */
export function signalGroup(pgid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(-pgid, sig);
  } catch {
    // Gone already.
  }
}

/** Windows has no process groups: end the shell and every process under it. */
export function killTree(pid: number): void {
  spawn('taskkill', ['/pid', String(pid), '/T', '/F'], { windowsHide: true, stdio: 'ignore' }).on('error', () => undefined);
}
