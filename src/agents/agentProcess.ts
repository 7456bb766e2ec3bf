/**
 * An ACP agent's process: spawned without a shell in a process group of its own (POSIX; a process
 * tree on Windows), stdin and stdout as the ACP stream, stderr to the log line by line with each
 * line and the rate capped (src/tools/mcpClient/stderrLines.ts), the last lines kept to say why it
 * ended. `stop()` sends the group SIGTERM and SIGKILL after a grace period; a group still running
 * when the extension host exits is killed.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import type { Readable as NodeReadable, Writable as NodeWritable } from 'node:stream';
import { Emitter, type Disposable, type Event } from '../base/events';
import type { Logger } from '../base/logger';
import { StderrLines } from '../tools/mcpClient/stderrLines';
import { commandEnv, killTree, signalGroup } from '../tools/terminal/processSupervisor';

/** After SIGTERM, how long before SIGKILL. */
export const AGENT_KILL_GRACE_MS = 2_000;
/** Lines of stderr kept to explain an agent that ended. */
const STDERR_TAIL_LINES = 5;

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

export class AgentProcess implements Disposable {
  /** Bytes to the agent (ACP messages, newline-delimited JSON). */
  readonly input: WritableStream<Uint8Array>;
  /** Bytes from the agent. */
  readonly output: ReadableStream<Uint8Array>;
  /** Settles once, when the process is gone (or never started). */
  readonly exited: Promise<AgentExit>;
  private readonly exitEmitter = new Emitter<AgentExit>();
  readonly onExit: Event<AgentExit> = this.exitEmitter.event;
  private readonly child: ChildProcessByStdio<NodeWritable, NodeReadable, NodeReadable>;
  private readonly tail: string[] = [];
  private ended = false;
  private killTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(command: AgentCommand, logger: Logger) {
    const env = agentEnv(command.env);
    const ownGroup = process.platform !== 'win32';
    this.child = spawn(command.command, [...command.args], { cwd: command.cwd, env, detached: ownGroup, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true });
    const pid = this.child.pid;
    if (ownGroup && pid !== undefined) liveGroups.add(pid);
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
    this.exited = new Promise<AgentExit>((resolve) => {
      const finish = (exit: Omit<AgentExit, 'stderrTail'>) => {
        if (this.ended) return;
        this.ended = true;
        if (pid !== undefined) liveGroups.delete(pid);
        if (this.killTimer !== undefined) clearTimeout(this.killTimer);
        const full: AgentExit = { ...exit, stderrTail: [...this.tail] };
        resolve(full);
        this.exitEmitter.fire(full);
      };
      this.child.once('error', (e: NodeJS.ErrnoException) => finish({ code: null, signal: null, spawnError: e.code === 'ENOENT' ? `${command.command} was not found` : e.message }));
      this.child.once('exit', (code, signal) => finish({ code, signal }));
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
    if (this.ended || this.killTimer !== undefined) return;
    this.signal('SIGTERM');
    this.killTimer = setTimeout(() => this.signal('SIGKILL'), AGENT_KILL_GRACE_MS);
    this.killTimer.unref?.();
  }

  dispose(): void {
    this.stop();
    this.exitEmitter.dispose();
  }

  private signal(sig: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (pid === undefined) return;
    if (process.platform === 'win32') killTree(pid);
    else signalGroup(pid, sig);
  }
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
