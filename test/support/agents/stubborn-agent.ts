/**
 * A stand-in agent for the process-tree tests (test/unit/agents/agentLauncher.test.ts), as plain
 * JavaScript for `node -e` (no loader: it starts fast and runs anywhere Node does). It ignores stdin's
 * end of file and SIGHUP, starts a grandchild that ignores SIGTERM and SIGHUP, echoes every byte of
 * stdin to stdout unchanged, and writes `{ agent, grandchild, controlPipe, runAsNode }` to the file named by
 * STUBBORN_PIDS (controlPipe: whether its file descriptor 3 is a pipe or socket; runAsNode: its ELECTRON_RUN_AS_NODE). STUBBORN_IGNORE_TERM=1 makes the
 * agent ignore SIGTERM too; STUBBORN_EXIT=<code> makes it exit with that code once the grandchild has written.
 */
export const STUBBORN_AGENT = `
const { spawn } = require('node:child_process');
const fs = require('node:fs');
process.on('SIGHUP', () => undefined);
if (process.env.STUBBORN_IGNORE_TERM === '1') process.on('SIGTERM', () => undefined);
let controlPipe = false;
try { controlPipe = fs.fstatSync(3).isSocket() || fs.fstatSync(3).isFIFO(); } catch {}
// The grandchild writes the pids once its own handlers are in place (a SIGTERM before that would end it).
spawn(process.execPath, ['-e', GRANDCHILD], { stdio: 'ignore', env: { ...process.env, STUBBORN_CONTROL: String(controlPipe) } });
if (process.env.STUBBORN_EXIT) setInterval(() => fs.existsSync(process.env.STUBBORN_PIDS) && process.exit(Number(process.env.STUBBORN_EXIT)), 20);
process.stdin.on('data', (chunk) => process.stdout.write(chunk));
process.stdin.on('end', () => undefined);
setInterval(() => undefined, 1000);
`.replace('GRANDCHILD', JSON.stringify(`
process.on('SIGTERM', () => undefined);
process.on('SIGHUP', () => undefined);
require('node:fs').writeFileSync(process.env.STUBBORN_PIDS, JSON.stringify({ agent: process.ppid, grandchild: process.pid, controlPipe: process.env.STUBBORN_CONTROL === 'true', runAsNode: process.env.ELECTRON_RUN_AS_NODE ?? null }));
setInterval(() => undefined, 1000);
`));
