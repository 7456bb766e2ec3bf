/**
 * The ACP client under test in a process of its own, wired as the extension wires it (as
 * test/support/agents/acp-harness.ts does): a ClientCore with the built-in tools and the gate, an
 * `AgentConnection` to a real agent process over stdio (hosts/mcpRelay.mjs, a pipe to the fuzzer's
 * port, where support/agentSide.ts speaks for the agent), one `AgentSession` with `gateCallbacks`
 * and the session's editor MCP server. The user denies every prompt and accepts every review as it
 * stands; each turn's run events are checked against the chat's schema, and after each turn nothing
 * outside the workspace, and no protected file, may have changed.
 *
 *   argv: {"port": N, "plant"?: "freeze" | "leak"} (a planted defect on what the agent sends, for planted.fuzz.ts)
 *   turn: one prompt; resolves with what the chat got and what changed on disk.
 *   reopen: a new connection and session (after a case closed the connection).
 */
import { readdir, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import * as path from 'node:path';
import { AgentConnection, type SessionHandlers } from '../../../src/agents/agentConnection';
import { startAgentMcp, type AgentMcp } from '../../../src/agents/agentMcp';
import { AgentSession } from '../../../src/agents/agentSession';
import { gateCallbacks } from '../../../src/agents/dispatcherCallbacks';
import { silentLogger } from '../../../src/base/logger';
import { ClientCore } from '../../../src/core/clientCore';
import { Schemas, type RunEvent } from '../../../src/protocol';
import { registerBuiltinGroups } from '../../../src/tools';
import { workspace } from '../support/doorHost';
import { onRequest, ready, serveHealth } from '../support/hostAgent';
import { planted, type Plant } from '../support/planted';

/** Files a decision never allowed to change: protected ones in the workspace (prompts are denied) and one beside it. */
const GUARDED: Record<string, string> = { 'ws/.env': 'API_KEY=sk-fuzz\n', 'ws/.vscode/tasks.json': '{}\n', 'outside.txt': 'outside\n' };
const THREAD = '00000000-0000-4000-8000-00000000f022';

export interface TurnOutcome {
  events: number;
  eventBytes: number;
  /** Run events the chat's schema refuses. */
  refused: number;
  ended: string;
  /** Guarded files changed and files that appeared outside the workspace. */
  changed: string[];
  closed?: string;
  prompts: number;
}

async function main(): Promise<void> {
  const { port, plant } = JSON.parse(process.argv[2]) as { port: number; plant?: Plant };
  const { host, folder, restoreFiles } = await workspace();
  const root = path.dirname(folder);
  const guard = async () => {
    for (const [rel, text] of Object.entries(GUARDED)) {
      await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
      await writeFile(path.join(root, rel), text);
    }
  };
  await guard();
  const rootEntries = new Set(await readdir(root));
  host.answerPrompts('deny');

  // The planted defect sits where the session reads what the agent sent: every update and request.
  if (plant && plant !== 'none') {
    const attach = AgentConnection.prototype.attach;
    AgentConnection.prototype.attach = function (this: AgentConnection, sessionId: string, handlers: SessionHandlers) {
      const wrapped = new Proxy(handlers, {
        get(target, key) {
          const f = Reflect.get(target, key) as unknown;
          return typeof f === 'function' ? (params: unknown, ...rest: unknown[]) => (planted(plant, params), (f as (...a: unknown[]) => unknown).call(target, params, ...rest)) : f;
        },
      });
      return attach.call(this, sessionId, wrapped);
    };
  }

  const core = new ClientCore({ url: '', token: '', clientInfo: { name: 'fuzz', version: '0.0.0', ide: 'none' }, host, presenter: host, logger: silentLogger, permissions: { backgroundCalls: 'ask', barrage: { maxPromptsPerMinute: 1_000_000 } } });
  registerBuiltinGroups(core.registry);

  let turn = { events: 0, eventBytes: 0, refused: 0, ended: 'nothing' };
  const emit = (event: RunEvent) => {
    turn.events++;
    turn.eventBytes += JSON.stringify(event).length;
    if (!Schemas.Messages.RunEvent.safeParse(event).success) turn.refused++;
    if (event.type === 'runFinished') turn.ended = event.reason;
  };

  let open: { connection: AgentConnection; session: AgentSession; mcp: AgentMcp; closed?: string } | undefined;
  const start = async () => {
    const connection = await AgentConnection.start({
      name: 'Fuzz Agent',
      command: { command: process.execPath, args: [path.join(__dirname, 'mcpRelay.mjs'), String(port)], env: {}, cwd: folder },
      clientInfo: { name: 'client-tools-fuzz', version: '0.0.0' },
      logger: silentLogger,
    });
    let running = () => false;
    const caller = { agent: 'Fuzz Agent', threadId: THREAD, isRunning: () => running() };
    const mcp = await startAgentMcp(core, caller, { serverVersion: '0.0.0-fuzz', logger: silentLogger, onRecord: () => {} });
    const callbacksFor = gateCallbacks(core, host, silentLogger, () => {}, mcp.name);
    const { session } = await AgentSession.open({
      agent: 'Fuzz Agent',
      threadId: THREAD,
      connection,
      callbacks: (s) => callbacksFor({ ...caller, isRunning: () => s.isRunning() }),
      cwd: folder,
      mcpServers: [mcp.server],
      emit,
      logger: silentLogger,
      cancelGraceMs: 2_000,
    });
    running = () => session.running;
    const opened: NonNullable<typeof open> = { connection, session, mcp };
    connection.onClose((reason) => {
      opened.closed = reason;
      session.connectionClosed(reason);
    });
    open = opened;
  };
  const stop = () => {
    open?.session.dispose();
    open?.connection.dispose();
    open?.mcp.dispose();
    open = undefined;
  };

  onRequest('turn', async (): Promise<TurnOutcome> => {
    turn = { events: 0, eventBytes: 0, refused: 0, ended: 'nothing' };
    host.prompts.length = 0;
    const current = open;
    if (!current) throw new Error('no session');
    await current.session.prompt('go');
    const changed: string[] = [];
    for (const [rel, text] of Object.entries(GUARDED)) {
      const now = await readFile(path.join(root, rel), 'utf8').catch(() => '(gone)');
      if (now !== text) changed.push(rel);
    }
    for (const name of await readdir(root)) if (!rootEntries.has(name)) changed.push(name);
    if (changed.length > 0) {
      for (const name of await readdir(root)) if (!rootEntries.has(name)) await rm(path.join(root, name), { recursive: true, force: true });
      await guard();
    }
    await restoreFiles();
    return { ...turn, changed, prompts: host.prompts.length, ...(current.closed !== undefined ? { closed: current.closed } : {}) };
  });

  onRequest('reopen', async () => {
    stop();
    await start();
    return 'reopened';
  });

  onRequest('info', () => ({ closed: open?.closed, mcpName: open?.mcp.name }));

  await start();
  ready({ healthUrl: await serveHealth(), folder }, async () => {
    stop();
    core.dispose();
  });
}

void main();
