/**
 * Every option of the backend, with its default. The CLI and `createBackend` both resolve through
 * `resolveOptions`, so they cannot drift apart.
 */
import { DEFAULT_LIMITS } from '../protocol';
import type { Logger, LogFunction } from './log';
import { boundedLogger, silentLogger, toLogger } from './log';
import type { ChatModel } from './model/chatModel';
import type { OpenAIModelConfig } from './model/modelConfig';
import { DEFAULT_MODEL_RETRIES } from './model/retry';
import type { AfterToolCallHook, BeforeToolCallHook, ServerTool } from './toolset/serverTools';
import { DEFAULT_CLIENT_TOOLS_INSTRUCTIONS } from './toolset/toolState';
import type { ConversationStore } from './store/conversationStore';
import type { ReadinessProbe } from './ops/health';
import type { SharedState } from './state/sharedState';
import type { JwtOptions } from './auth/jwt';
import { DEFAULT_STREAM_LIMITS } from './model/streamGuard';
import { DEFAULT_CREDENTIAL_CHECK_MS } from './auth/credentialSweep';
import { DEFAULT_MAX_TOOL_ARGUMENT_BYTES } from './run/toolArguments';

/** What the backend does with a client call in flight when the client disconnects (session/invoker.ts). */
export const DISCONNECT_STRATEGIES = ['failFast', 'retryWithBackoff', 'fallbackMessage', 'suspend'] as const;
export type DisconnectStrategy = (typeof DISCONNECT_STRATEGIES)[number];

export const DEFAULT_FALLBACK_TEMPLATE = 'The editor disconnected, so the tool {toolName} could not run. Tell the user, and do not retry it until they reconnect.';

export interface InvokerOptions {
  invokeTimeoutMs: number;
  disconnectStrategy: DisconnectStrategy;
  /** retryWithBackoff: how many backoff steps (or re-sends) before giving up. */
  maxRetries: number;
  retryBaseDelayMs: number;
  retryMaxDelayMs: number;
  /** fallbackMessage: `{toolName}` is replaced by the tool's name. */
  fallbackMessageTemplate: string;
  /** Client calls that may be in flight at once; more fail at once with TOO_MANY_IN_FLIGHT. */
  maxInFlight: number;
}

export const DEFAULT_SYSTEM_PROMPT =
  'You are a helpful coding assistant working inside the user\'s editor. Use the available functions when they help, and answer concisely.';

export interface BackendOptions {
  /** Interface to bind; loopback by default. Requests must still carry a loopback Host header. */
  host?: string;
  /** 0 (default) picks a free port. */
  port?: number;
  /** The connection token; a random one (32 bytes) when omitted. */
  token?: string;
  /** Write `{port, token, pid, protocol}` here (mode 0600, exclusive create); removed on close and exit. */
  discoveryFile?: string;
  /** Named tokens: a 0600 file of `<user> sha256:<hash>` lines, re-read when it changes (docs/BACKEND.md "Authentication"). */
  tokensFile?: string;
  /** Accept JWTs signed by a key of this JWKS, with this issuer and audience; the user is `sub`. */
  jwt?: JwtOptions;
  /** A ready model, an OpenAI-compatible endpoint, or 'offline' for the demo model (the default). */
  model?: ChatModel | OpenAIModelConfig | 'offline';
  systemPrompt?: string;
  /** Model calls per run before it stops with `maxTurns`. */
  maxTurns?: number;
  /** A model request's whole time, stream included (default 10 minutes); past it the run ends with MODEL_TIMEOUT. */
  modelTimeoutMs?: number;
  /** Time from sending a model request to its answer's first chunk before the request is stopped (default 60 s; MODEL_TIMEOUT). */
  modelFirstByteTimeoutMs?: number;
  /** Time without anything from the model endpoint after a chunk before the request is stopped (default 30 s; MODEL_TIMEOUT). */
  modelIdleTimeoutMs?: number;
  /** Times a model request that timed out before any answer is sent again, each announced by a `modelRetry` event (default 2). */
  modelRetries?: number;
  /** UTF-8 bytes of answer (text and tool-call arguments) one model request may bring (default 8 MiB; LIMIT_EXCEEDED). */
  modelMaxAnswerBytes?: number;
  /** UTF-8 bytes of one tool call's arguments the backend parses (default 1 MiB); a larger call is not run and the model reads why. */
  maxToolArgumentBytes?: number;
  /** Runs one session may have in progress at once (default 16); past it a message gets RUN_LIMIT. */
  maxRunsPerSession?: number;
  /** Threads one session keeps in memory (default 256); the least recently used idle one makes room, else RUN_LIMIT. */
  maxThreadsPerSession?: number;

  /** Milliseconds a client tool may take, not counting time spent waiting for the user's permission. */
  invokeTimeoutMs?: number;
  disconnectStrategy?: DisconnectStrategy;
  /** retryWithBackoff: retries before the call fails (default 3). */
  maxRetries?: number;
  retryBaseDelayMs?: number;
  retryMaxDelayMs?: number;
  /** fallbackMessage: the result text; `{toolName}` is replaced. */
  fallbackMessageTemplate?: string;

  /** Show collapsed groups as one container function (default true). */
  collapsing?: boolean;
  /** The global text about client tools that joins the system prompt. */
  clientToolsInstructions?: string;

  /** Include the built-in server tools (`get_current_time`); default true. */
  builtinTools?: boolean;
  /** More server tools; `registerTool` adds them later too. */
  tools?: ServerTool[];
  hooks?: { beforeToolCall?: BeforeToolCallHook[]; afterToolCall?: AfterToolCallHook[] };

  limits?: { maxMessageBytes?: number; maxInFlight?: number };
  /** Sessions attached at once (default 16); as many more may be in their handshake. See docs/BACKEND.md "Limits". */
  maxConnections?: number;
  /** Sessions kept in all, attached or waiting to be resumed (default 4 × maxConnections). */
  maxSessions?: number;
  /** Attached sessions one named or JWT user may have (default half of maxConnections, at most 8); the shared token's user is not capped apart. */
  maxConnectionsPerUser?: number;
  /** Sessions one named or JWT user may keep, attached or waiting to be resumed (default 4 × maxConnectionsPerUser). */
  maxSessionsPerUser?: number;
  /** TCP connections that have not upgraded yet (default 64); past it the oldest is dropped. */
  maxPendingSockets?: number;
  /** Milliseconds a TCP connection has to send a complete upgrade request (default 10,000). */
  headersTimeoutMs?: number;
  /** Unsent output one connection may hold before it is closed with SLOW_CONSUMER (default 64 MiB). */
  maxBufferedBytes?: number;
  /** Bytes one stored tool result may keep in a thread's history; more is kept as a head/tail excerpt (default 256 KiB). */
  historyResultBytes?: number;
  /** Bytes one thread's history may hold; past it older tool results shrink first (default 4 MiB). */
  historyBudgetBytes?: number;
  /** The model's context window in tokens; by default from a table of model families (context/windows.ts). */
  contextWindow?: number;
  /** What happens to older turns that no longer fit the window: summarised by the model (default; the offline model elides) or elided with a marker. */
  compaction?: 'summarize' | 'elide';
  handshakeTimeoutMs?: number;
  heartbeatMs?: number;
  /** With replicas: a run's lease on its thread (default 10 s, renewed every third); after a crash another replica continues the run once it runs out. */
  leaseMs?: number;
  /** How long a dropped session (threads, tool state, pending calls) waits to be resumed. */
  sessionGraceMs?: number;
  /** How often open sessions' credentials are checked again (default 5 s): a removed named token or an expired JWT ends its sessions within this (CREDENTIALS_REVOKED). */
  credentialCheckMs?: number;

  /**
   * A folder for the conversation store: each thread's history is saved there (created 0700, files
   * 0600) and reloaded after a restart. Without it (and without `store`) threads are kept in memory.
   */
  dataDir?: string;
  /** A store of your own (the seam for a networked one); takes precedence over `dataDir`. */
  store?: ConversationStore;
  /**
   * A Redis URL (`redis://[user:password@]host:port[/db]`, `rediss://` for TLS): sessions, calls,
   * run leases and conversations live there, shared by every replica using the same Redis and
   * prefix. Without it everything stays in this process. Not with `dataDir` or `store`.
   */
  redis?: string;
  /** Prefix of every Redis key (default `ct:`), so deployments can share one Redis. */
  redisPrefix?: string;
  /** This replica's name in Redis records and leases (default: host name and process id). */
  replica?: string;
  /** A shared state of your own (takes precedence over `redis`; its `store` is used for conversations). */
  sharedState?: SharedState;

  /** Checks `/readyz` runs besides "listening and not draining", e.g. that Redis answers (docs/DEPLOY.md). */
  readinessProbes?: ReadinessProbe[];
  /**
   * A second listener for operations: `/metrics` (Prometheus), `/healthz`, `/readyz`. Off by default;
   * metrics are only served there, never on the editors' port (docs/DEPLOY.md, "Operations").
   */
  opsPort?: number;
  /** The ops listener's interface (default 127.0.0.1). */
  opsHost?: string;
  /** How long `drain()` (SIGTERM in the CLI) waits for runs in progress before handing their sessions over anyway (default 30 s). */
  drainTimeoutMs?: number;

  /** Where diagnostics go: a `Logger` (`stderrLogger()` for a terminal), or a `(level, message)` function. */
  log?: Logger | LogFunction;
}

/** Every option with its value; the invoker's options are among them. */
export interface ResolvedOptions extends InvokerOptions {
  host: string;
  port: number;
  token: string | undefined;
  discoveryFile: string | undefined;
  tokensFile: string | undefined;
  jwt: JwtOptions | undefined;
  model: ChatModel | OpenAIModelConfig | 'offline';
  systemPrompt: string;
  maxTurns: number;
  modelTimeoutMs: number;
  modelFirstByteTimeoutMs: number;
  modelIdleTimeoutMs: number;
  modelRetries: number;
  modelMaxAnswerBytes: number;
  maxToolArgumentBytes: number;
  maxRunsPerSession: number;
  maxThreadsPerSession: number;
  collapsing: boolean;
  clientToolsInstructions: string;
  builtinTools: boolean;
  tools: ServerTool[];
  hooks: { beforeToolCall: BeforeToolCallHook[]; afterToolCall: AfterToolCallHook[] };
  maxMessageBytes: number;
  maxConnections: number;
  maxSessions: number;
  maxConnectionsPerUser: number;
  maxSessionsPerUser: number;
  maxPendingSockets: number;
  headersTimeoutMs: number;
  maxBufferedBytes: number;
  historyResultBytes: number;
  historyBudgetBytes: number;
  contextWindow: number | undefined;
  compaction: 'summarize' | 'elide';
  handshakeTimeoutMs: number;
  heartbeatMs: number;
  leaseMs: number | undefined;
  sessionGraceMs: number;
  credentialCheckMs: number;
  dataDir: string | undefined;
  store: ConversationStore | undefined;
  readinessProbes: ReadinessProbe[];
  opsPort: number | undefined;
  opsHost: string;
  drainTimeoutMs: number;
  redis: string | undefined;
  redisPrefix: string;
  replica: string | undefined;
  sharedState: SharedState | undefined;
  log: Logger;
}

export function resolveOptions(o: BackendOptions = {}): ResolvedOptions {
  return {
    host: o.host ?? '127.0.0.1',
    port: o.port ?? 0,
    token: o.token,
    discoveryFile: o.discoveryFile,
    tokensFile: o.tokensFile,
    jwt: o.jwt,
    model: o.model ?? 'offline',
    systemPrompt: o.systemPrompt ?? DEFAULT_SYSTEM_PROMPT,
    maxTurns: positive('maxTurns', o.maxTurns ?? 25),
    modelTimeoutMs: positive('modelTimeoutMs', o.modelTimeoutMs ?? DEFAULT_STREAM_LIMITS.totalMs),
    modelFirstByteTimeoutMs: positive('modelFirstByteTimeoutMs', o.modelFirstByteTimeoutMs ?? DEFAULT_STREAM_LIMITS.firstByteMs),
    modelIdleTimeoutMs: positive('modelIdleTimeoutMs', o.modelIdleTimeoutMs ?? DEFAULT_STREAM_LIMITS.idleMs),
    modelRetries: nonNegative('modelRetries', o.modelRetries ?? DEFAULT_MODEL_RETRIES),
    modelMaxAnswerBytes: positive('modelMaxAnswerBytes', o.modelMaxAnswerBytes ?? DEFAULT_STREAM_LIMITS.maxAnswerBytes),
    maxToolArgumentBytes: positive('maxToolArgumentBytes', o.maxToolArgumentBytes ?? DEFAULT_MAX_TOOL_ARGUMENT_BYTES),
    maxRunsPerSession: atLeast('maxRunsPerSession', o.maxRunsPerSession ?? 16, 1),
    maxThreadsPerSession: atLeast('maxThreadsPerSession', o.maxThreadsPerSession ?? 256, 1),
    invokeTimeoutMs: positive('invokeTimeoutMs', o.invokeTimeoutMs ?? DEFAULT_LIMITS.invokeTimeoutMs),
    disconnectStrategy: o.disconnectStrategy ?? 'retryWithBackoff',
    maxRetries: nonNegative('maxRetries', o.maxRetries ?? 3),
    retryBaseDelayMs: positive('retryBaseDelayMs', o.retryBaseDelayMs ?? 1_000),
    retryMaxDelayMs: positive('retryMaxDelayMs', o.retryMaxDelayMs ?? 30_000),
    fallbackMessageTemplate: o.fallbackMessageTemplate ?? DEFAULT_FALLBACK_TEMPLATE,
    collapsing: o.collapsing ?? true,
    clientToolsInstructions: o.clientToolsInstructions ?? DEFAULT_CLIENT_TOOLS_INSTRUCTIONS,
    builtinTools: o.builtinTools ?? true,
    tools: o.tools ?? [],
    hooks: { beforeToolCall: [...(o.hooks?.beforeToolCall ?? [])], afterToolCall: [...(o.hooks?.afterToolCall ?? [])] },
    maxMessageBytes: positive('limits.maxMessageBytes', o.limits?.maxMessageBytes ?? DEFAULT_LIMITS.maxMessageBytes),
    maxInFlight: positive('limits.maxInFlight', o.limits?.maxInFlight ?? DEFAULT_LIMITS.maxInFlight),
    maxConnections: positive('maxConnections', o.maxConnections ?? 16),
    maxSessions: positive('maxSessions', o.maxSessions ?? 4 * (o.maxConnections ?? 16)),
    ...perUser(o),
    maxPendingSockets: positive('maxPendingSockets', o.maxPendingSockets ?? 64),
    headersTimeoutMs: positive('headersTimeoutMs', o.headersTimeoutMs ?? 10_000),
    maxBufferedBytes: positive('maxBufferedBytes', o.maxBufferedBytes ?? 64 * 1024 * 1024),
    historyResultBytes: positive('historyResultBytes', o.historyResultBytes ?? 256 * 1024),
    historyBudgetBytes: positive('historyBudgetBytes', o.historyBudgetBytes ?? 4 * 1024 * 1024),
    contextWindow: o.contextWindow !== undefined ? atLeast('contextWindow', o.contextWindow, 1024) : undefined,
    compaction: o.compaction ?? 'summarize',
    handshakeTimeoutMs: positive('handshakeTimeoutMs', o.handshakeTimeoutMs ?? 10_000),
    heartbeatMs: positive('heartbeatMs', o.heartbeatMs ?? DEFAULT_LIMITS.heartbeatMs),
    leaseMs: o.leaseMs !== undefined ? atLeast('leaseMs', o.leaseMs, 100) : undefined,
    sessionGraceMs: positive('sessionGraceMs', o.sessionGraceMs ?? 5 * 60_000),
    credentialCheckMs: positive('credentialCheckMs', o.credentialCheckMs ?? DEFAULT_CREDENTIAL_CHECK_MS),
    dataDir: o.dataDir,
    store: o.store,
    readinessProbes: [...(o.readinessProbes ?? [])],
    opsPort: o.opsPort,
    opsHost: o.opsHost ?? '127.0.0.1',
    drainTimeoutMs: positive('drainTimeoutMs', o.drainTimeoutMs ?? 30_000),
    redis: redisUrl(o),
    redisPrefix: o.redisPrefix ?? 'ct:',
    replica: o.replica,
    sharedState: o.sharedState,
    log: o.log ? boundedLogger(toLogger(o.log)) : silentLogger,
  };
}

/** The Redis URL, refused when another place for conversations was given too or it is not a Redis URL. */
function redisUrl(o: BackendOptions): string | undefined {
  if (o.redis === undefined) return undefined;
  if (o.dataDir !== undefined) throw new RangeError('redis and dataDir cannot be used together: with Redis, conversations are kept in Redis');
  if (o.store !== undefined) throw new RangeError('redis and store cannot be used together: with Redis, conversations are kept in Redis');
  let scheme: string;
  try {
    scheme = new URL(o.redis).protocol;
  } catch {
    throw new RangeError('redis must be a URL such as redis://127.0.0.1:6379');
  }
  if (scheme !== 'redis:' && scheme !== 'rediss:') throw new RangeError(`redis must be a redis:// or rediss:// URL, got a ${scheme} one`);
  return o.redis;
}

/** Per-user caps: by default no user may take more than half the connections, so one cannot lock the others out. */
function perUser(o: BackendOptions): { maxConnectionsPerUser: number; maxSessionsPerUser: number } {
  const connections = atLeast('maxConnectionsPerUser', o.maxConnectionsPerUser ?? Math.max(1, Math.min(8, Math.floor((o.maxConnections ?? 16) / 2))), 1);
  return { maxConnectionsPerUser: connections, maxSessionsPerUser: atLeast('maxSessionsPerUser', o.maxSessionsPerUser ?? 4 * connections, 1) };
}

function positive(name: string, v: number): number {
  if (!Number.isFinite(v) || v <= 0) throw new RangeError(`${name} must be a positive number, got ${v}`);
  return v;
}

function nonNegative(name: string, v: number): number {
  if (!Number.isInteger(v) || v < 0) throw new RangeError(`${name} must be a non-negative integer, got ${v}`);
  return v;
}

function atLeast(name: string, v: number, min: number): number {
  if (!Number.isInteger(v) || v < min) throw new RangeError(`${name} must be an integer of at least ${min}, got ${v}`);
  return v;
}
