/**
 * The backend as a library: other Node agents embed it with their own server-side tools, hooks and
 * model.
 *
 *   const backend = await createBackend({ model: { baseURL, model: 'gpt-4.1-mini', apiKey } });
 *   backend.registerTool({ name: 'search_docs', description: '…', parameters: {…}, execute: (args) => '…' });
 *   backend.hooks.beforeToolCall((call) => (call.toolName === 'DeleteFile' ? { block: true, reason: 'read-only mode' } : undefined));
 *   backend.on('runEvent', (event) => console.log(event.type));
 *   // connect a client to backend.url with the header x-client-tools-token: backend.token
 */
import type { TokenCounts } from '../protocol';
import { ErrorCode, TOOL_NAME_PATTERN } from '../protocol';
import { DemoModel } from './demo/demoModel';
import type { BackendEvents, EventName } from './events';
import { BackendEventEmitter } from './events';
import { compileParameters } from './toolset/jsonSchema';
import type { ChatModel } from './model/chatModel';
import { createChatModel } from './model/factory';
import { failure } from './run/toolCalls';
import type { BackendOptions, ResolvedOptions } from './options';
import { resolveOptions } from './options';
import { BackendServer } from './transport/server';
import type { AfterToolCallHook, BeforeToolCallHook, ServerTool, ToolCallResult } from './toolset/serverTools';
import type { InvokeClientToolOptions } from './session/session';
import { BUILTIN_TOOLS } from './toolset/serverTools';
import type { ConversationStore } from './store/conversationStore';
import { LogStore } from './store/logStore';
import { MemoryStore } from './store/memoryStore';
import type { DrainReport } from './ops/drain';
import { meteredModel } from './ops/meteredModel';
import { BackendMetrics } from './ops/metrics';
import type { OpsServer } from './ops/opsServer';
import { startOpsServer } from './ops/opsServer';
import { observedState, reachable } from './ops/observedState';
import { MemorySharedState } from './state/memorySharedState';
import { redactedUrl } from './state/redisConnection';
import { RedisSharedState } from './state/redisSharedState';
import type { SharedState } from './state/sharedState';
import { loadTokenizer } from './context/tokens';

export type { BackendEvents } from './events';
export type { DisconnectStrategy } from './options';
export { DISCONNECT_STRATEGIES } from './options';
export type { LogFields, LogFunction, Logger, LogLevel } from './log';
export { stderrLogger } from './log';
export type { ChatMessage, ChatModel, ModelChunk, ModelRequest, ToolCallRequest, UsageChunk } from './model/chatModel';
export type { RunUsage, TokenCounts } from '../protocol';
export { ModelFailure } from './model/chatModel';
export type { OpenAIModelConfig } from './model/modelConfig';
export { OpenAIChatModel } from './model/openai';
export { ResponsesChatModel } from './model/responses';
export { createChatModel } from './model/factory';
export type { AzureEndpoint, ModelApi, ModelProvider } from './model/endpoint';
export { DemoModel } from './demo/demoModel';
export type { BackendOptions } from './options';
export type { InvokeClientToolOptions } from './session/session';
export type {
  AfterToolCallHook,
  BeforeToolCallDecision,
  BeforeToolCallHook,
  ServerTool,
  ServerToolContext,
  ServerToolReturn,
  ToolCallInfo,
  ToolCallResult,
} from './toolset/serverTools';
export type { FunctionSpec } from './toolset/toolState';
export type { ConversationStore, StoredRecord, StoredThread, StoredToolState, StoredRunStatus, ThreadSummary } from './store/conversationStore';
export { StoreError } from './store/conversationStore';
export { LogStore } from './store/logStore';
export { MemoryStore } from './store/memoryStore';
export type { DrainReport } from './ops/drain';
export type { ReadinessProbe } from './ops/health';
export { jsonLogger } from './ops/jsonLog';
export type { CallRecord, Lease, SessionRecord, SharedState } from './state/sharedState';
export { SharedStateError } from './state/sharedState';
export { MemorySharedState } from './state/memorySharedState';
export { RedisSharedState } from './state/redisSharedState';

export interface Backend {
  readonly host: string;
  readonly port: number;
  /** Send it in the `x-client-tools-token` header. Never log it. */
  readonly token: string;
  /** `ws://127.0.0.1:PORT` */
  readonly url: string;
  readonly model: { name: string; offline: boolean };
  /** Closes every connection and session, stops listening, removes the discovery file. */
  close(): Promise<void>;
  /** Adds a server-side tool for every session; returns a function that removes it. */
  registerTool(tool: ServerTool): () => void;
  readonly hooks: {
    /** Runs before every client or server tool call: block it with a reason, or rewrite its arguments. */
    beforeToolCall(hook: BeforeToolCallHook): () => void;
    /** Runs after every client or server tool call: return a result to replace it. */
    afterToolCall(hook: AfterToolCallHook): () => void;
  };
  on<E extends EventName>(event: E, listener: BackendEvents[E]): () => void;
  /**
   * Runs a client tool from your own code, outside a model turn (e.g. read the selection before a
   * run). `sessionId` comes from the `session` event; 'any' picks the newest connected session. The
   * call takes the model's path (registered tool, schema check, timeout, disconnection strategy,
   * the client's permission prompt) but sends no run events and runs no hooks. Never rejects: an
   * unknown session, tool or bad arguments end as a failed result with a code. A `timeoutMs` that is
   * not a positive integer throws a RangeError at once.
   */
  invokeClientTool(sessionId: string, toolName: string, args?: Record<string, unknown>, options?: InvokeClientToolOptions): Promise<ToolCallResult>;
  /**
   * The tokens a thread's runs used so far (what its last `runFinished` reported as `usage.thread`);
   * undefined for an unknown session or thread, or when the model reported no usage.
   */
  threadUsage(sessionId: string, threadId: string): TokenCounts | undefined;
  /**
   * Graceful drain: stops admitting (new upgrades and `/readyz` get 503), hands each attached session
   * over once its runs and calls end (close code 1012, the client reconnects elsewhere), waits at most
   * `timeoutMs` (default `drainTimeoutMs`). Call `close()` afterwards.
   */
  drain(timeoutMs?: number): Promise<DrainReport>;
  /** This backend's Prometheus metrics in the text exposition format (what the ops listener's `/metrics` serves). */
  metrics(): Promise<string>;
  /** The ops listener's port when `opsPort` was given. */
  readonly opsPort: number | undefined;
}

export async function createBackend(options: BackendOptions = {}): Promise<Backend> {
  const resolved = resolveOptions(options);
  const events = new BackendEventEmitter((event, e) => resolved.log.error(`a "${event}" listener threw: ${e instanceof Error ? e.message : String(e)}`));
  let server: BackendServer | undefined;
  const idle = { attachedSessions: 0, detachedSessions: 0, clientCallsInFlight: 0, runsInProgress: 0, threadsKept: 0, draining: false };
  const metrics = new BackendMetrics(events, () => server?.stats() ?? idle);
  const model = meteredModel(createModel(resolved), (seconds, code) => metrics.modelRequest(seconds, code));
  // A backend that will count tokens (a real model, or a window set) loads the tables now, before any
  // client; the offline demo without a window never loads them (session.ts contextConfig).
  if (!model.offline || resolved.contextWindow !== undefined) loadTokenizer();
  const tools = new Map<string, ServerTool>();
  for (const tool of [...(resolved.builtinTools ? BUILTIN_TOOLS : []), ...resolved.tools]) addTool(tools, tool);
  const hooks = resolved.hooks;
  const shared = await openState(resolved);
  const state = observedState(shared.state, (code, operation) => events.emit('stateError', { code, operation }));
  const store = state.store;
  // Shared with other replicas: a replica that cannot reach it must not take editors (/readyz).
  if (resolved.redis !== undefined || resolved.sharedState) resolved.readinessProbes.push(() => reachable(state));
  let ops: OpsServer | undefined;
  try {
    server = await BackendServer.start({ options: resolved, model, serverTools: () => tools, hooks, events, store, state });
  } catch (e) {
    metrics.dispose();
    await shared.close();
    throw e;
  }
  const started = server;
  if (resolved.opsPort !== undefined) {
    try {
      ops = await startOpsServer(resolved.opsHost, resolved.opsPort, started, metrics);
    } catch (e) {
      await started.close();
      metrics.dispose();
      await shared.close();
      throw e;
    }
    resolved.log.info(`operations endpoints on ${resolved.opsHost}:${ops.port} (/metrics, /healthz, /readyz)`);
  }
  const urlHost = resolved.host.includes(':') ? `[${resolved.host}]` : resolved.host;

  return {
    host: resolved.host,
    port: started.port,
    token: started.token,
    url: `ws://${urlHost}:${started.port}`,
    model: { name: model.name, offline: model.offline },
    opsPort: ops?.port,
    async close() {
      await started.close();
      await ops?.close();
      metrics.dispose();
      // A store or state passed in belongs to the caller; one this backend opened is closed with it.
      await shared.close();
    },
    registerTool(tool) {
      addTool(tools, tool);
      return () => {
        if (tools.get(tool.name) === tool) tools.delete(tool.name);
      };
    },
    hooks: {
      beforeToolCall: (hook) => addHook(hooks.beforeToolCall, hook),
      afterToolCall: (hook) => addHook(hooks.afterToolCall, hook),
    },
    on: (event, listener) => events.on(event, listener),
    invokeClientTool(sessionId, toolName, args = {}, options = {}) {
      const t = options.timeoutMs;
      if (t !== undefined && (!Number.isInteger(t) || t <= 0)) throw new RangeError(`timeoutMs must be a positive integer, got ${t}`);
      const session = started.findSession(sessionId);
      if (!session) {
        const why = sessionId === 'any' ? failure(ErrorCode.Disconnected, 'No client is connected.') : failure(ErrorCode.SessionUnknown, `No session "${sessionId.slice(0, 200)}".`);
        return Promise.resolve(why);
      }
      return session.invokeTool(toolName, args, options);
    },
    threadUsage: (sessionId, threadId) => started.findSession(sessionId)?.agent.threadUsage(threadId),
    drain: (timeoutMs = resolved.drainTimeoutMs) => started.drain(timeoutMs),
    metrics: () => metrics.render(),
  };
}

/** The shared state: the caller's, Redis with `redis`, else this process's around the usual store; `close` closes what was opened here. */
async function openState(o: ResolvedOptions): Promise<{ state: SharedState; close: () => Promise<void> }> {
  if (o.sharedState) return { state: o.sharedState, close: () => Promise.resolve() };
  if (o.redis !== undefined) {
    const redis = await RedisSharedState.connect({ url: o.redis, prefix: o.redisPrefix, replica: o.replica, log: o.log });
    o.log.info(`sessions, calls and conversations are kept in Redis at ${redactedUrl(o.redis)}`);
    return { state: redis, close: () => redis.close() };
  }
  const store = await openStore(o);
  const local = new MemorySharedState({ replica: o.replica, store });
  return {
    state: local,
    async close() {
      await local.close();
      if (store !== o.store) await store.close();
    },
  };
}

function openStore(o: ResolvedOptions): Promise<ConversationStore> {
  if (o.store) return Promise.resolve(o.store);
  if (o.dataDir !== undefined) return LogStore.open(o.dataDir, o.log);
  return Promise.resolve(new MemoryStore());
}

function createModel(o: ResolvedOptions): ChatModel {
  if (o.model === 'offline') return new DemoModel();
  if ('stream' in o.model) return o.model;
  return createChatModel({
    ...o.model,
    timeoutMs: o.model.timeoutMs ?? o.modelTimeoutMs,
    firstByteTimeoutMs: o.model.firstByteTimeoutMs ?? o.modelFirstByteTimeoutMs,
    idleTimeoutMs: o.model.idleTimeoutMs ?? o.modelIdleTimeoutMs,
    maxAnswerBytes: o.model.maxAnswerBytes ?? o.modelMaxAnswerBytes,
    log: o.model.log ?? o.log,
  });
}

/** Refuses a server tool with a bad name, a bad schema, or a name already taken, naming it. */
function addTool(tools: Map<string, ServerTool>, tool: ServerTool): void {
  if (!TOOL_NAME_PATTERN.test(tool.name)) throw new Error(`Server tool "${tool.name}": the name must match ^[A-Za-z0-9_-]{1,64}$.`);
  if (tools.has(tool.name)) throw new Error(`Server tool "${tool.name}" is already registered.`);
  const schema = compileParameters(tool.parameters);
  if (!schema.ok) throw new Error(`Server tool "${tool.name}" has an invalid parameter schema: ${schema.reason}.`);
  tools.set(tool.name, tool);
}

function addHook<H>(list: H[], hook: H): () => void {
  list.push(hook);
  return () => {
    const i = list.indexOf(hook);
    if (i >= 0) list.splice(i, 1);
  };
}
