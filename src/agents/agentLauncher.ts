/**
 * The launcher every ACP agent is started through (bundled to dist/agentLauncher.js, run by the
 * extension host's own runtime), so that an agent's whole process tree ends when the editor's does,
 * however the editor ends (a crash or SIGKILL runs no exit handler) and whatever the agent does on
 * stdin EOF. The extension starts it as the leader of a process group of its own (POSIX); the agent
 * is its child in that group and gets the launcher's stdin, stdout and stderr themselves (inherited:
 * the ACP bytes never pass through here). File descriptor 3 is the control pipe: only the extension
 * holds its other end, so its end of file means the extension is gone; so does a changed parent pid.
 * Then the group gets SIGTERM and, after the grace period, SIGKILL (the launcher with it). On Windows
 * (no process groups) the agent's tree is ended with `taskkill /T /F` instead.
 *
 * Arguments: grace period in ms, comma-separated environment variables to remove (the ones only the
 * launcher needed), the agent's command, its arguments. Reads nothing but end of file on the control
 * pipe; writes one JSON line to it when the agent cannot be started.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Socket } from 'node:net';
import { killTree } from '../tools/terminal/processSupervisor';

/** The launcher's exit code when the agent could not be started (the reason went to the control pipe). */
const LAUNCH_FAILED_EXIT_CODE = 213;
/** How often the parent pid is compared (the control pipe's end of file usually comes first). */
const PARENT_POLL_MS = 1_000;

const [graceArg = '2000', unsetArg = '', command = '', ...args] = process.argv.slice(2);
const graceMs = Number.parseInt(graceArg, 10) || 2_000;
const posix = process.platform !== 'win32';
const parentPid = process.ppid;
let control: Socket | undefined;
try {
  control = new Socket({ fd: 3, readable: true, writable: true });
} catch {
  // Started without a control pipe (by hand): the parent pid check still applies.
}
let agent: ChildProcess | undefined;
let ending = false;

// The group's SIGTERM (the extension's stop, or ours) is for the agent: the launcher stays to pass on how it ended.
process.on('SIGTERM', () => undefined);

const env = { ...process.env };
for (const name of unsetArg.split(',')) if (name) delete env[name];
try {
  // 'ignore' on 3 closes the control pipe in the agent (it would otherwise inherit it).
  agent = spawn(command, args, { env, stdio: ['inherit', 'inherit', 'inherit', 'ignore'], windowsHide: true });
  agent.once('error', (e: NodeJS.ErrnoException) => launchFailed(e.code === 'ENOENT' ? `${command} was not found` : e.message));
  agent.once('exit', (code, signal) => agentEnded(code, signal));
} catch (e) {
  launchFailed(e instanceof Error ? e.message : String(e));
}

control?.on('data', () => undefined);
control?.on('end', parentGone);
control?.on('close', parentGone);
control?.on('error', parentGone);
setInterval(() => {
  if (process.ppid !== parentPid) parentGone();
}, PARENT_POLL_MS).unref();

/** The editor is gone: end the agent's whole tree, gracefully first. */
function parentGone(): void {
  if (ending) return;
  ending = true;
  signalTree('SIGTERM');
  setTimeout(() => {
    signalTree('SIGKILL');
    process.exit(1);
  }, graceMs);
}

/** The agent ended on its own (or was stopped): what it left in the group is asked to go, and the launcher ends as the agent did. */
function agentEnded(code: number | null, signal: NodeJS.Signals | null): void {
  if (ending) return;
  if (posix) signalGroup('SIGTERM');
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  }
  process.exit(code ?? 1);
}

function launchFailed(reason: string): void {
  if (ending) return;
  ending = true;
  const line = `${JSON.stringify({ launchError: reason.slice(0, 1_000) })}\n`;
  if (control?.writable) control.end(line, () => process.exit(LAUNCH_FAILED_EXIT_CODE));
  else process.exit(LAUNCH_FAILED_EXIT_CODE);
}

function signalTree(sig: NodeJS.Signals): void {
  if (posix) {
    if (!signalGroup(sig)) agent?.kill(sig);
  } else if (agent?.pid !== undefined) {
    killTree(agent.pid);
  }
}

/** Signals the launcher's own group (the launcher ignores SIGTERM); false when it leads none. */
function signalGroup(sig: NodeJS.Signals): boolean {
  try {
    process.kill(-process.pid, sig);
    return true;
  } catch {
    return false;
  }
}
