/**
 * An ACP agent for tests, on the official SDK's agent side, run as its own process
 * (`node --import tsx scripted-agent.ts`) so that dying, hanging and flooding are real. It reads
 * its script from the file SCRIPTED_AGENT_FILE (JSON, see `AgentScript`) and appends what the client answered to
 * its requests to the file SCRIPTED_AGENT_LOG, one JSON line each. `__MCP__` in a step stands for the
 * editor's MCP server's name (from session/new). `__CWD__` in a step stands for
 * the session's folder (the client's `cwd`).
 */
import { once } from 'node:events';
import * as fs from 'node:fs';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';

export type ScriptStep =
  /** A `session/update` (the session id is filled in). */
  | { update: Record<string, unknown> }
  /** A request to the client; its answer or error goes to the log under `as`. */
  | { call: string; params: Record<string, unknown>; as?: string; background?: boolean }
  | { sleep: number }
  /** The process exits at once with this code. */
  | { exit: number }
  /** The turn never ends (and ignores session/cancel unless `untilCancel`). */
  | { hang: true; untilCancel?: boolean }
  /** `count` agent_message_chunk updates of `text`, then `tools` tool_call updates. */
  | { flood: { count: number; text: string; tools?: number } }
  /** Raw bytes on stdout (not ACP). */
  | { raw: string }
  /** This turn's answer carries a `_meta` of this many members. */
  | { answerMeta: number };

export interface AgentScript {
  /** What `initialize` advertises. */
  capabilities?: Record<string, unknown>;
  /** `initialize` is never answered. */
  initHang?: boolean;
  /** One list of steps per prompt, in order (counted over every process that shares the log); a prompt past the end just ends its turn. */
  turns: ScriptStep[][];
  /** The turn's stop reason (default end_turn). */
  stopReason?: string;
  /** `usage` on the prompt response (ACP's unstable field). */
  usage?: Record<string, number>;
  /** Each message from the client is logged as it arrives on stdin, in wire order: `{ wire: method }`, `{ wire: 'answer' }` for an answer. */
  logWire?: boolean;
  /** `session/cancel` is logged but changes nothing (the turn goes on with its steps). */
  ignoresCancel?: boolean;
  /** Updates replayed by `session/load`. */
  loadReplay?: Record<string, unknown>[];
}

const script = JSON.parse(process.env.SCRIPTED_AGENT_FILE ? fs.readFileSync(process.env.SCRIPTED_AGENT_FILE, 'utf8') : '{"turns":[]}') as AgentScript;
const logFile = process.env.SCRIPTED_AGENT_LOG;
const log = (entry: unknown) => {
  if (logFile) fs.appendFileSync(logFile, `${JSON.stringify(entry)}\n`);
};

// What the agent was started with: its arguments after the script, and the variables a test names in SCRIPTED_AGENT_ECHO.
log({ pid: process.pid, argv: process.argv.slice(2), env: Object.fromEntries((process.env.SCRIPTED_AGENT_ECHO ?? '').split(',').filter(Boolean).map((k) => [k, process.env[k] ?? null])) });
let turnInProcess = 0;
const promptsLogged = () => (fs.existsSync(logFile as string) ? fs.readFileSync(logFile as string, 'utf8').split('\n').filter((l) => l.includes('"method":"session/prompt"')).length : 0);
/** The session's folder, from session/new or load: `__CWD__` in a step's params or update stands for it. */
let cwd = '';
/** The name of the editor's MCP server the session got: `__MCP__` in a step stands for it. */
let mcpName = '';
const withCwd = <T>(value: T): T => JSON.parse(JSON.stringify(value).split('__CWD__').join(cwd.replace(/\\/g, '\\\\')).split('__MCP__').join(mcpName)) as T;
let cancelled = false;
let onCancel: (() => void) | undefined;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const app = acp.agent({ name: 'scripted-agent' })
  .onRequest(acp.methods.agent.initialize, async ({ params }) => {
    log({ method: 'initialize', params });
    if (script.initHang) await new Promise(() => {});
    return { protocolVersion: acp.PROTOCOL_VERSION, agentCapabilities: script.capabilities ?? {}, agentInfo: { name: 'scripted-agent', version: '1.0.0' } };
  })
  .onRequest(acp.methods.agent.session.new, ({ params }) => {
    log({ method: 'session/new', params });
    cwd = params.cwd;
    mcpName = params.mcpServers[0]?.name ?? '';
    return { sessionId: 'session-1', modes: { currentModeId: 'ask', availableModes: [{ id: 'ask', name: 'Ask' }, { id: 'auto', name: 'Auto' }] } };
  })
  .onRequest(acp.methods.agent.session.load, async ({ params, client }) => {
    log({ method: 'session/load', params });
    cwd = params.cwd;
    mcpName = params.mcpServers[0]?.name ?? '';
    for (const update of script.loadReplay ?? []) await client.notify(acp.methods.client.session.update, { sessionId: params.sessionId, update } as never);
    return {};
  })
  .onRequest(acp.methods.agent.session.resume, ({ params }) => {
    log({ method: 'session/resume', params });
    cwd = params.cwd;
    mcpName = params.mcpServers?.[0]?.name ?? '';
    return {};
  })
  .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
    log({ method: 'session/cancel', params });
    if (script.ignoresCancel) return;
    cancelled = true;
    onCancel?.();
  })
  .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
    // Turns count across processes sharing a log (an agent started again after it died goes on).
    const turn = logFile ? promptsLogged() : turnInProcess++;
    log({ method: 'session/prompt', params });
    cancelled = false;
    const steps = script.turns[turn] ?? [];
    const sessionId = params.sessionId;
    const background: Promise<unknown>[] = [];
    let answerMeta = 0;
    for (const step of steps) {
      if (cancelled) break;
      if ('update' in step) {
        await client.notify(acp.methods.client.session.update, { sessionId, update: withCwd(step.update) } as never);
      } else if ('call' in step) {
        const done = client.request(step.call, { sessionId, ...withCwd(step.params) }).then(
          (result) => log({ as: step.as ?? step.call, result }),
          (error: acp.RequestError) => log({ as: step.as ?? step.call, error: { code: error.code, message: error.message, data: error.data } }),
        );
        if (step.background) background.push(done);
        else await done;
      } else if ('sleep' in step) {
        await sleep(step.sleep);
      } else if ('exit' in step) {
        process.exit(step.exit);
      } else if ('hang' in step) {
        await new Promise<void>((resolve) => {
          if (step.untilCancel) onCancel = resolve;
        });
      } else if ('flood' in step) {
        for (let i = 0; i < step.flood.count; i++) void client.notify(acp.methods.client.session.update, { sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: step.flood.text } } });
        for (let i = 0; i < (step.flood.tools ?? 0); i++) void client.notify(acp.methods.client.session.update, { sessionId, update: { sessionUpdate: 'tool_call', toolCallId: `flood-${i}`, title: `Flood ${i}`, kind: 'other', status: 'completed' } });
      } else if ('raw' in step) {
        // Past stdout's buffer, wait for 'drain': Node 20's Writable.toWeb (the SDK's writer below)
        // skips a chunk written while the stream needs draining, and the turn's answer would be lost.
        if (!process.stdout.write(step.raw)) await once(process.stdout, 'drain');
      } else if ('answerMeta' in step) {
        answerMeta = step.answerMeta;
      }
    }
    await Promise.all(background);
    return { stopReason: (cancelled ? 'cancelled' : script.stopReason ?? 'end_turn') as acp.StopReason, ...(script.usage ? { usage: script.usage } : {}), ...(answerMeta ? { _meta: Object.fromEntries(Array.from({ length: answerMeta }, (_, i) => [`k${i}`, i])) } : {}) };
  });

if (script.logWire) {
  let partial = '';
  process.stdin.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines.filter(Boolean)) {
      const message = JSON.parse(line) as { method?: string; id?: unknown; error?: { data?: { code?: string } } };
      log(message.method ? { wire: message.method } : { wire: 'answer', id: message.id, code: message.error?.data?.code });
    }
  });
}

const stream = acp.ndJsonStream(Writable.toWeb(process.stdout) as WritableStream<Uint8Array>, Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>);
const connection = app.connect(stream);
void connection.closed.then(() => process.exit(0));
