/**
 * The ACP client in plain Node, wired as the extension wires it: a ClientCore (registry with the
 * built-in tools, permission gate, fake host over a temporary workspace), an agent process over
 * `AgentConnection`, one `AgentSession` with `gateCallbacks` and the session's own editor MCP
 * server. The agent is the scripted one (scripted-agent.ts) or a real one (agent-launch.ts).
 * Everything the chat would get (run events, call records, status) is collected.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { AgentConnection, type ConnectionLimits } from '../../../src/agents/agentConnection';
import { startAgentMcp, type AgentMcp } from '../../../src/agents/agentMcp';
import { AgentSession, type Continuation } from '../../../src/agents/agentSession';
import { gateCallbacks } from '../../../src/agents/dispatcherCallbacks';
import { prepareLaunch, type AgentLaunch } from '../../../src/agents/presetLaunch';
import type { AgentStatusChange } from '../../../src/agents/sessionUpdates';
import type { BackgroundCallPolicy, CallRecord } from '../../../src/core/callRecord';
import { ClientCore } from '../../../src/core/clientCore';
import { Schemas, type RunEvent } from '../../../src/protocol';
import { registerBuiltinGroups } from '../../../src/tools';
import { RecordingLogger } from '../dispatch-harness';
import { createTempWorkspace, type TempWorkspace } from '../fake-host';
import { probeTools } from '../mcp-harness';
import type { AgentScript } from './scripted-agent';

export const AGENT_NAME = 'Test Agent';

export interface AgentProgram {
  command: string;
  args: string[];
  env: Record<string, string>;
}

export interface LogEntry {
  method?: string;
  /** A message from the client as it arrived (the script's `logWire`). */
  wire?: string;
  /** With `wire` 'answer': the answer's id and its error's code. */
  id?: unknown;
  code?: string;
  as?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: { code: number; message: string; data?: { code?: string } };
}

export interface AcpHarness {
  ws: TempWorkspace;
  core: ClientCore;
  connection: AgentConnection;
  session: AgentSession;
  continuation: Continuation;
  mcp: AgentMcp;
  events: RunEvent[];
  records: CallRecord[];
  statuses: AgentStatusChange[];
  logger: RecordingLogger;
  /** The scripted agent's log of what the client answered. */
  agentLog(): LogEntry[];
  /** The answer logged for a request the script named `as`. */
  answer(as: string): LogEntry | undefined;
  /** Runs one turn; resolves after its runFinished. */
  prompt(text: string): Promise<void>;
  /** Resolves once an event matching `test` has been emitted. */
  waitForEvent(test: (e: RunEvent) => boolean, timeoutMs?: number): Promise<RunEvent>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  script?: AgentScript;
  program?: AgentProgram;
  files?: Record<string, string | Uint8Array>;
  backgroundCalls?: BackgroundCallPolicy;
  cancelGraceMs?: number;
  limits?: Partial<ConnectionLimits>;
  /** Resume or load this earlier session id. */
  previous?: string;
  /** The agent's working folder; default the workspace folder. */
  cwd?: string;
  /** How often the turn's events reach the chat (default TurnEvents' own). */
  flushMs?: number;
  /** What the extension adds to the agent's launch (a preset's, src/agents/presetLaunch.ts). */
  launch?: AgentLaunch;
  /** Register the test's Probe tools (Echo, …) beside the built-in groups; default true. */
  probeTools?: boolean;
}

const SCRIPTED_AGENT = path.join(__dirname, 'scripted-agent.ts');
/** tsx's loader by absolute URL: the agent runs in the test's workspace folder, where `tsx` does not resolve. */
const TSX_LOADER = pathToFileURL(require.resolve('tsx')).href;

/** How to start the scripted agent with a script (and the log file it writes). */
export function scriptedProgram(script: AgentScript, logFile: string): AgentProgram {
  // In a file beside the log: a large script does not fit in the environment (E2BIG).
  const scriptFile = `${logFile}.script.json`;
  fs.writeFileSync(scriptFile, JSON.stringify(script));
  return {
    command: process.execPath,
    args: ['--import', TSX_LOADER, SCRIPTED_AGENT],
    env: { SCRIPTED_AGENT_FILE: scriptFile, SCRIPTED_AGENT_LOG: logFile },
  };
}

export async function startAcpHarness(options: HarnessOptions): Promise<AcpHarness> {
  const ws = await createTempWorkspace(['ws'], options.files ?? {});
  const logger = new RecordingLogger();
  const core = new ClientCore({
    url: '',
    token: '',
    clientInfo: { name: 'test', version: '1.0.0', ide: 'Fake IDE' },
    host: ws.host,
    presenter: ws.host,
    logger,
    limits: { progressIntervalMs: 200 },
    permissions: { backgroundCalls: options.backgroundCalls ?? 'ask' },
  });
  registerBuiltinGroups(core.registry);
  if (options.probeTools !== false) core.registry.register({ name: 'Probe', description: 'test tools' }, probeTools());
  const logFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'client-tools-agent-log-')), 'log.jsonl');
  const program = options.program ?? scriptedProgram(options.script ?? { turns: [] }, logFile);
  const folder = ws.folders[0]?.path as string;
  const cwd = options.cwd ?? folder;
  const events: RunEvent[] = [];
  const records: CallRecord[] = [];
  const statuses: AgentStatusChange[] = [];
  const waiters: { test: (e: RunEvent) => boolean; resolve: (e: RunEvent) => void }[] = [];
  const emit = (event: RunEvent) => {
    const parsed = Schemas.Messages.RunEvent.safeParse(event);
    if (!parsed.success) throw new Error(`an invalid run event: ${JSON.stringify(parsed.error.issues[0])} in ${JSON.stringify(event).slice(0, 300)}`);
    events.push(event);
    for (const w of [...waiters]) {
      if (w.test(event)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(event);
      }
    }
  };
  const threadId = '00000000-0000-4000-8000-000000000001';
  let running = () => false;
  const caller = { agent: AGENT_NAME, threadId, isRunning: () => running() };
  const launched = options.launch ? prepareLaunch(options.launch, path.join(path.dirname(logFile), 'launch')) : { args: [], env: {} };
  const connection = await AgentConnection.start({
    name: AGENT_NAME,
    command: { command: program.command, args: [...program.args, ...launched.args], env: { ...launched.env, ...program.env }, cwd },
    clientInfo: { name: 'client-tools-test', version: '1.0.0' },
    logger,
    ...(options.limits ? { limits: options.limits } : {}),
  });
  const mcp = await startAgentMcp(core, caller, { serverVersion: '0.0.0-test', logger, onRecord: (r) => records.push(r), listing: options.launch?.mcpTools ?? 'flat' });
  const callbacksFor = gateCallbacks(core, ws.host, logger, (r) => records.push(r), mcp.name, options.launch?.reviewEditPermissions);
  const { session, continuation } = await AgentSession.open({
    agent: AGENT_NAME,
    threadId,
    connection,
    callbacks: (s) => callbacksFor({ ...caller, isRunning: () => s.isRunning() }),
    cwd,
    mcpServers: [mcp.server],
    ...(options.launch?.sessionMeta ? { sessionMeta: options.launch.sessionMeta } : {}),
    ...(options.launch?.endTurnAtReasonedDeny === true ? { endTurnAtReasonedDeny: true } : {}),
    emit,
    onStatus: (s) => statuses.push(s),
    logger,
    ...(options.cancelGraceMs !== undefined ? { cancelGraceMs: options.cancelGraceMs } : {}),
    ...(options.flushMs !== undefined ? { flushMs: options.flushMs } : {}),
  }, options.previous);
  running = () => session.running;
  connection.onClose((reason) => session.connectionClosed(reason));
  const agentLog = (): LogEntry[] => (fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as LogEntry) : []);
  return {
    ws, core, connection, session, continuation, mcp, events, records, statuses, logger,
    agentLog,
    answer: (as) => agentLog().find((e) => e.as === as),
    prompt: (text) => session.prompt(text),
    waitForEvent(test, timeoutMs = 20_000) {
      const found = events.find(test);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no such run event within ${timeoutMs} ms; got ${events.map((e) => e.type).join(', ')}`)), timeoutMs);
        waiters.push({ test, resolve: (e) => { clearTimeout(timer); resolve(e); } });
      });
    },
    async close() {
      session.dispose();
      connection.dispose();
      mcp.dispose();
      core.dispose();
      await ws.dispose();
      fs.rmSync(path.dirname(logFile), { recursive: true, force: true });
    },
  };
}
