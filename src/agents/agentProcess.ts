/**
 * An ACP agent's process, started through the launcher (agentLauncher.ts) without a shell: the
 * launcher leads a process group of its own (POSIX; a process tree on Windows) with the agent in it,
 * and ends that group when this process is gone (its control pipe's end of file), however this
 * process ends. stdin and stdout are the ACP stream (the agent's own, inherited by the launcher),
 * stderr goes to the log line by line with each line and the rate capped
 * (src/tools/mcpClient/stderrLines.ts), the last lines kept to say why it ended. `stop()` sends the
 * group SIGTERM and SIGKILL after a grace period, the SIGKILL also when the agent ended sooner (what
 * it started may not have); a group still running when the extension host exits is killed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { Readable, Writable } from 'node:stream';
import type { Readable as NodeReadable, Writable as NodeWritable } from 'node:stream';
import { Emitter, type Disposable, type Event } from '../base/events';
import type { Logger } from '../base/logger';
import { StderrLines } from '../tools/mcpClient/stderrLines';
import { commandEnv, killTree, signalGroup } from '../tools/terminal/processSupervisor';

/** After SIGTERM, how long before SIGKILL (here and in the launcher when the editor is gone). */
export const AGENT_KILL_GRACE_MS = 2_000;
/** Lines of stderr kept to explain an agent that ended. */
const STDERR_TAIL_LINES = 5;
/** Most bytes read from the launcher's control pipe (one short JSON line when the agent could not start). */
const MAX_CONTROL_BYTES = 4_096;
/** How long after the launcher's exit its control pipe may take to say why. */
const CONTROL_WAIT_MS = 1_000;
/** Lets the extension host's runtime (Electron in desktop VS Code) run the launcher as Node. */
const RUN_AS_NODE = 'ELECTRON_RUN_AS_NODE';

export interface AgentCommand {
  command: string;
  args: readonly string[];
  /** Added to (and overriding) the editor's environment. */
  env: Readonly<Record<string, string>>;
  cwd: string;
}

export interface AgentExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The agent could not be started at all (ENOENT, EACCES): the spawn error's message. */
  spawnError?: string;
  /** Its last lines of stderr, for the message the user sees. */
  stderrTail: string[];
}

const liveGroups = new Set<number>();
process.once('exit', () => {
  for (const pgid of liveGroups) signalGroup(pgid, 'SIGKILL');
});

type LauncherChild = ChildProcess & { stdin: NodeWritable; stdout: NodeReadable; stderr: NodeReadable };

export class AgentProcess implements Disposable {
  /** Bytes to the agent (ACP messages, newline-delimited JSON). */
  readonly input: WritableStream<Uint8Array>;
  /** Bytes from the agent. */
  readonly output: ReadableStream<Uint8Array>;
  /** Settles once, when the process is gone (or never started). */
  readonly exited: Promise<AgentExit>;
  private readonly exitEmitter = new Emitter<AgentExit>();
  readonly onExit: Event<AgentExit> = this.exitEmitter.event;
  private readonly child: LauncherChild;
  private readonly control: NodeReadable | undefined;
  private readonly tail: string[] = [];
  private ended = false;
  private killTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(command: AgentCommand, logger: Logger) {
    const env = agentEnv(command.env);
    const ownGroup = process.platform !== 'win32';
    const launcher = launcherEntry();
    const launcherArgs = [...launcher.execArgv, launcher.file, String(AGENT_KILL_GRACE_MS), RUN_AS_NODE in env ? '' : RUN_AS_NODE, command.command, ...command.args];
    this.child = spawn(process.execPath, launcherArgs, { cwd: command.cwd, env: { ...env, [RUN_AS_NODE]: '1' }, detached: ownGroup, stdio: ['pipe', 'pipe', 'pipe', 'pipe'], windowsHide: true }) as LauncherChild;
    const pid = this.child.pid;
    if (ownGroup && pid !== undefined) liveGroups.add(pid);
    this.control = this.child.stdio[3] as NodeReadable | null ?? undefined;
    const lines = new StderrLines((line) => {
      this.tail.push(line);
      if (this.tail.length > STDERR_TAIL_LINES) this.tail.shift();
      logger.info(`agent stderr: ${line}`);
    });
    this.child.stderr.on('data', (chunk: Buffer) => lines.push(chunk));
    // A write after the agent closed its stdin must not become an unhandled error.
    this.child.stdin.on('error', () => undefined);
    this.input = Writable.toWeb(this.child.stdin) as WritableStream<Uint8Array>;
    this.output = Readable.toWeb(this.child.stdout) as ReadableStream<Uint8Array>;
    const launchError = readLaunchError(this.control);
    this.exited = new Promise<AgentExit>((resolve) => {
      const finish = (exit: Omit<AgentExit, 'stderrTail'>) => {
        if (this.ended) return;
        this.ended = true;
        // What the agent started may outlive it in the group: SIGKILL after the grace period, stop() or not.
        if (this.killTimer === undefined) this.scheduleKill();
        const full: AgentExit = { ...exit, stderrTail: [...this.tail] };
        resolve(full);
        this.exitEmitter.fire(full);
      };
      this.child.once('error', (e: NodeJS.ErrnoException) => finish({ code: null, signal: null, spawnError: e.code === 'ENOENT' ? `${command.command} was not found` : e.message }));
      this.child.once('exit', (code, signal) => {
        // Only the launcher holds the control pipe's other end: it closes with the launcher.
        const waited = new Promise<undefined>((r) => setTimeout(() => r(undefined), CONTROL_WAIT_MS).unref?.());
        void Promise.race([launchError, waited]).then((spawnError) => finish(spawnError !== undefined ? { code: null, signal: null, spawnError } : { code, signal }));
      });
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return !this.ended;
  }

  /** SIGTERM to the whole group now, SIGKILL after the grace period if it is still there. */
  stop(): void {
    if (this.killTimer !== undefined) return;
    if (!this.ended) this.signal('SIGTERM');
    this.scheduleKill();
  }

  dispose(): void {
    this.stop();
    this.exitEmitter.dispose();
  }

  private scheduleKill(): void {
    this.killTimer = setTimeout(() => {
      this.signal('SIGKILL');
      if (this.child.pid !== undefined) liveGroups.delete(this.child.pid);
    }, AGENT_KILL_GRACE_MS);
    this.killTimer.unref?.();
  }

  private signal(sig: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (pid === undefined) return;
    if (process.platform === 'win32') killTree(pid);
    else signalGroup(pid, sig);
  }
}

/** How to run the launcher: the bundle's dist/agentLauncher.js beside the extension, or its source through tsx. */
export function launcherEntry(): { file: string; execArgv: string[] } {
  const bundled = path.join(__dirname, 'agentLauncher.js');
  if (existsSync(bundled)) return { file: bundled, execArgv: [] };
  const source = path.join(__dirname, 'agentLauncher.ts');
  // tsx by absolute path: the launcher runs in the agent's folder, where `tsx` does not resolve.
  // (createRequire: the bundle must not try to resolve tsx, which it never needs.)
  if (path.extname(__filename) === '.ts' && existsSync(source)) return { file: source, execArgv: ['--require', createRequire(__filename).resolve('tsx/cjs')] };
  return { file: bundled, execArgv: [] };
}

/** The reason the launcher gives on its control pipe when the agent could not be started (bounded; undefined when none). */
function readLaunchError(control: NodeReadable | undefined): Promise<string | undefined> {
  if (!control) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    let text = '';
    const done = () => {
      try {
        const parsed = JSON.parse(text.split('\n')[0] ?? '') as { launchError?: unknown };
        resolve(typeof parsed.launchError === 'string' ? parsed.launchError.slice(0, 1_000) : undefined);
      } catch {
        resolve(undefined);
      }
    };
    control.on('data', (chunk: Buffer) => {
      if (text.length < MAX_CONTROL_BYTES) text += chunk.toString('utf8').slice(0, MAX_CONTROL_BYTES - text.length);
    });
    control.once('close', done);
    control.once('error', () => undefined);
  });
}

/**
 * The agent's environment: the editor's, without the extension host's own variables and without
 * Client Tools' secrets (the backend token), plus the agent's configured variables. Agents need
 * the user's PATH, HOME and their own API keys, unlike a command the agent asks to run.
 */
export function agentEnv(extra: Readonly<Record<string, string>>, from: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env = commandEnv(from);
  for (const key of Object.keys(env)) if (key.startsWith('CLIENT_TOOLS_')) delete env[key];
  return { ...env, ...extra };
}

/** One line saying how an agent ended, for errors the user sees. */
export function describeExit(name: string, exit: AgentExit): string {
  const how = exit.spawnError !== undefined
    ? `could not be started: ${exit.spawnError}`
    : exit.signal !== null ? `was ended by ${exit.signal}` : `exited with code ${exit.code ?? 'unknown'}`;
  const last = exit.stderrTail.at(-1);
  return `${name} ${how}${last ? ` (its last words: ${last.slice(0, 300)})` : ''}`;
}
