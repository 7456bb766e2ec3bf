/**
 * One backend replica for the scaling benchmark: the real CLI (`dist/backend/cli.js`, as it ships)
 * in its own process, started with the given flags; waits for its ready line, reads its RSS from
 * /proc, and stops it with SIGTERM (SIGKILL when it does not exit within 10 s).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { BENCH_DIR } from './paths';

export const CLI = path.join(BENCH_DIR, '..', 'dist', 'backend', 'cli.js');

export class ReplicaProcess {
  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
    /** The last stderr lines, for a failure report. */
    readonly stderr: string[],
  ) {}

  static start(args: string[], env: NodeJS.ProcessEnv): Promise<ReplicaProcess> {
    if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run node esbuild.mjs first`);
    const child = spawn(process.execPath, [CLI, '--port', '0', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const stderr: string[] = [];
    readline.createInterface({ input: child.stderr! }).on('line', (l) => {
      stderr.push(l);
      if (stderr.length > 50) stderr.shift();
    });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`a replica did not start within 30 s: ${stderr.join('\n')}`));
      }, 30_000);
      readline.createInterface({ input: child.stdout! }).on('line', (line) => {
        const m = /^\{"event":"listening","port":(\d+)\}$/.exec(line);
        if (!m) return;
        clearTimeout(timer);
        resolve(new ReplicaProcess(child, Number(m[1]), stderr));
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`a replica exited with ${code}: ${stderr.join('\n')}`));
      });
    });
  }

  /** Resident set size in bytes (Linux /proc), 0 where that cannot be read. */
  rss(): number {
    try {
      const status = fs.readFileSync(`/proc/${this.child.pid}/status`, 'utf8');
      const kb = /^VmRSS:\s+(\d+) kB$/m.exec(status);
      return kb ? Number(kb[1]) * 1024 : 0;
    } catch {
      return 0;
    }
  }

  /** CPU time used so far, user + system, in seconds (Linux /proc). */
  cpuSeconds(): number {
    return cpuSecondsOf(this.child.pid);
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
}

/** CPU seconds (user + system) of a process from /proc/<pid>/stat; 0 where that cannot be read. */
export function cpuSecondsOf(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at field 3; utime and stime are 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/** USER_HZ: 100 on every Linux the project runs on. */
const CLOCK_TICKS = 100;
