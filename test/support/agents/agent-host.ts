/**
 * A stand-in extension host for test/unit/agents/agentLauncher.test.ts: starts the stubborn agent
 * through the real spawn path (src/agents/agentProcess.ts, so through the launcher) and then only
 * waits, until the test kills it (SIGKILL: no exit handler of ours runs). Run as
 * `node --require tsx/cjs agent-host.ts <pids file>`.
 */
import { silentLogger } from '../../../src/base/logger';
import { AgentProcess } from '../../../src/agents/agentProcess';
import { STUBBORN_AGENT } from './stubborn-agent';

const pidsFile = process.argv[2] as string;
const agent = new AgentProcess({ command: process.execPath, args: ['-e', STUBBORN_AGENT], env: { STUBBORN_PIDS: pidsFile }, cwd: process.cwd() }, silentLogger);
void agent.exited;
setInterval(() => undefined, 1_000);
