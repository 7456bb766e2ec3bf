/**
 * `client-tools-backend`: the reference agent backend as a command.
 *
 * stdout carries exactly one line, `{"event":"listening","port":N}`, once the server accepts
 * connections (the extension waits for it); everything else goes to stderr. The token is never
 * printed: it comes from --token or CLIENT_TOOLS_TOKEN, or is random and written to the discovery
 * file. The API key comes only from OPENAI_API_KEY (a flag would show in `ps`), or for Azure from
 * AZURE_OPENAI_API_KEY or an Entra ID token in AZURE_OPENAI_AD_TOKEN.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import type { Backend, BackendOptions, DisconnectStrategy, LogLevel } from './index';
import { createBackend, DISCONNECT_STRATEGIES, jsonLogger, stderrLogger } from './index';
import type { ModelApi, ModelProvider } from './model/endpoint';
import { DEFAULT_AZURE_API_VERSION, MODEL_APIS, MODEL_PROVIDERS } from './model/endpoint';
import type { OpenAIModelConfig } from './model/modelConfig';
import { DEFAULT_MODEL_NAME } from './model/openai';
import { VISION_SETTINGS, type VisionSetting } from './model/images';
import type { JwtOptions } from './auth/jwt';
import { runTokensCommand } from './auth/tokensCommand';

export const USAGE = `Usage: client-tools-backend [options]
       client-tools-backend tokens add|remove|list [<user>] --file <path>   (see tokens --help)

Runs the Client Tools agent backend: a WebSocket server on loopback that the editor connects to.
Prints {"event":"listening","port":N} on stdout when ready; logs go to stderr.

Options:
  --host <address>            Interface to bind (default 127.0.0.1). Clients must still send a loopback Host.
  --port <n>                  Port to listen on (default 0: any free port).
  --token <token>             Connection token (default: env CLIENT_TOOLS_TOKEN, else a random one).
  --discovery-file <path>     Write {port, token, pid, protocol} there (mode 0600). With a random token and
                              no path, ~/.client-tools/backends/<pid>.json is used.
  --tokens-file <path>        Named tokens, one user each (0600; re-read when it changes). With it or a
                              JWT option, no random token or discovery file is made unless asked for.
  --jwt-issuer <iss>          Accept JWTs from this issuer (needs --jwt-audience and a JWKS).
  --jwt-audience <aud>        The audience JWTs must name.
  --jwt-jwks-file <path>      The issuer's public keys (JWKS JSON).
  --jwt-jwks-url <url>        ...or where to fetch them (https; 5 s time limit, cached).
  --jwt-user-claim <claim>    The claim naming the user (default sub).
  --model <name>              Model name (default: env CLIENT_TOOLS_MODEL).
  --base-url <url>            OpenAI-compatible endpoint (default: env OPENAI_BASE_URL, else OpenAI).
  --offline                   Use the offline demo model. It is also used when neither a model nor a
                              base URL is given (and the provider is not azure).
  --api <api>                 chat (Chat Completions, default) | responses (the Responses API).
  --provider <p>              openai (OpenAI or any compatible base URL, default) | azure (Azure OpenAI).
  --azure-endpoint <url>      Azure resource, e.g. https://my-resource.openai.azure.com/ (default: env
                              AZURE_OPENAI_ENDPOINT).
  --azure-deployment <name>   Azure deployment to call (default: the model name).
  --azure-api-version <v>     Azure api-version (default: env OPENAI_API_VERSION, else ${DEFAULT_AZURE_API_VERSION}).
  --vision <mode>             auto | on | off (default auto): send images from tools to the model as images;
                              auto does for known vision models (gpt-4o, gpt-4.1, gpt-5, claude, gemini, llava...).
  --image-max-side <px>       Longest side images are scaled down to before they are sent (default 1568).
  --invoke-timeout <ms>       Client tool timeout in milliseconds, or with a unit: 30s, 2m (default 30000).
                              Time spent waiting for the user's permission does not count.
  --disconnect-strategy <s>   failFast | retryWithBackoff | fallbackMessage | suspend (default retryWithBackoff).
  --max-retries <n>           Retries for retryWithBackoff (default 3).
  --lease-ms <ms>             With --redis: a run's lease on its thread (default 10s); after a replica dies,
                              another continues its runs once their leases run out.
  --max-turns <n>             Model calls per run (default 25).
  --model-timeout <ms>        A model request's whole time, stream included (default 10m); then MODEL_TIMEOUT.
  --model-first-byte-timeout <ms>  Time from a model request to its answer's first chunk before the
                              request is stopped (default 60s; MODEL_TIMEOUT).
  --model-idle-timeout <ms>   Time without anything from the model endpoint after a chunk before the
                              request is stopped (default 30s; MODEL_TIMEOUT).
  --model-retries <n>         Times a request that got no answer in time is sent again, announced in
                              the run (default 2).
  --model-max-answer-bytes <size>  Text and tool-call arguments one model request may bring (default 8MiB).
  --max-tool-argument-bytes <size> One tool call's arguments the backend parses (default 1MiB); a larger
                              call is not run and the model reads why (LIMIT_EXCEEDED).
  --max-runs-per-session <n>  Runs one session may have in progress (default 16); then RUN_LIMIT.
  --max-threads-per-session <n>  Threads one session keeps in memory (default 256).
  --max-connections <n>       Attached sessions, and connections waiting for hello (default 16).
  --max-sessions <n>          Sessions kept, attached or waiting to be resumed (default 4 × max-connections).
  --max-connections-per-user <n>  Attached sessions of one named or JWT user (default half of
                              max-connections, at most 8); then SESSION_LIMIT.
  --max-sessions-per-user <n> Sessions one named or JWT user keeps (default 4 × max-connections-per-user).
  --max-pending-sockets <n>   TCP connections not upgraded yet (default 64); past it the oldest is dropped.
  --headers-timeout <ms>      Time a connection has to send its upgrade request (default 10s).
  --max-buffered-bytes <size> Unsent output per connection before it is closed with SLOW_CONSUMER
                              (default 64MiB; plain bytes or with KiB/MiB).
  --history-result-bytes <size>  Bytes one tool result keeps in a thread's history (default 256KiB).
  --history-budget-bytes <size>  Bytes one thread's history keeps (default 4MiB).
  --data-dir <dir>            Save conversations there (created 0700, files 0600) so threads survive a
                              restart; without it they are kept in memory only.
  --redis <url>               Keep sessions, calls, run leases and conversations in Redis, shared by every
                              replica on it: redis://host:port (default: env CLIENT_TOOLS_REDIS_URL; put a
                              password there, not in the flag, which shows in ps). Not with --data-dir.
  --redis-prefix <prefix>     Prefix of every Redis key (default ct:).
  --replica <name>            This replica's name in Redis (default: host name and process id).
  --context-window <tokens>   The model's context window (default: by model family, 8192 if unknown).
  --compaction <mode>         summarize | elide: older turns that no longer fit (default summarize).
  --log-level <level>         debug | info | warn | error (default info).
  --log-format <format>       text | json (default text). json: one object per line (time, level, msg, fields).
  --ops-port <n>              Serve /metrics (Prometheus), /healthz and /readyz on this port (0: any free
                              port). /healthz and /readyz are also answered on the main port; /metrics only here.
  --ops-host <address>        Interface of the ops port (default 127.0.0.1).
  --credential-check <ms>     How often open sessions' credentials are checked again (default 5s): a named
                              token removed from the tokens file or an expired JWT ends its sessions.
  --drain-timeout <ms>        On SIGTERM: stop admitting, hand sessions over as their runs end, wait at most
                              this long (default 30s), then exit 0. A second SIGTERM, or SIGINT, stops at once.
  --help                      Show this help.

Environment:
  OPENAI_API_KEY              API key for the model endpoint (never logged).
  AZURE_OPENAI_API_KEY        API key for Azure (else OPENAI_API_KEY is used).
  AZURE_OPENAI_AD_TOKEN       Entra ID token for Azure instead of a key, e.g. from
                              az account get-access-token --resource https://cognitiveservices.azure.com
                              --query accessToken -o tsv (not refreshed: restart when it expires).
  OPENAI_BASE_URL             Endpoint, e.g. http://127.0.0.1:11434/v1 for Ollama.
  CLIENT_TOOLS_MODEL          Model name, e.g. gpt-4.1-mini.
  CLIENT_TOOLS_TOKEN          Connection token (how the extension passes it).
  CLIENT_TOOLS_REDIS_URL      Redis URL, as --redis (never logged with its password).
`;

export class UsageError extends Error {}

export interface CliConfig {
  help: boolean;
  options: BackendOptions;
  logLevel: LogLevel;
  logFormat: 'text' | 'json';
  /** True when the token was generated here (so it must go to a discovery file). */
  randomToken: boolean;
}

/** Turns argv and the environment into backend options; throws UsageError on bad input. */
export function parseCli(argv: string[], env: NodeJS.ProcessEnv): CliConfig {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        host: { type: 'string' },
        port: { type: 'string' },
        token: { type: 'string' },
        'discovery-file': { type: 'string' },
        'tokens-file': { type: 'string' },
        'jwt-issuer': { type: 'string' },
        'jwt-audience': { type: 'string' },
        'jwt-jwks-file': { type: 'string' },
        'jwt-jwks-url': { type: 'string' },
        'jwt-user-claim': { type: 'string' },
        model: { type: 'string' },
        'base-url': { type: 'string' },
        offline: { type: 'boolean' },
        api: { type: 'string' },
        provider: { type: 'string' },
        'azure-endpoint': { type: 'string' },
        'azure-deployment': { type: 'string' },
        'azure-api-version': { type: 'string' },
        vision: { type: 'string' },
        'image-max-side': { type: 'string' },
        'invoke-timeout': { type: 'string' },
        'disconnect-strategy': { type: 'string' },
        'max-retries': { type: 'string' },
        'lease-ms': { type: 'string' },
        'max-turns': { type: 'string' },
        'model-timeout': { type: 'string' },
        'model-first-byte-timeout': { type: 'string' },
        'model-idle-timeout': { type: 'string' },
        'model-retries': { type: 'string' },
        'model-max-answer-bytes': { type: 'string' },
        'max-tool-argument-bytes': { type: 'string' },
        'max-runs-per-session': { type: 'string' },
        'max-threads-per-session': { type: 'string' },
        'max-connections-per-user': { type: 'string' },
        'max-sessions-per-user': { type: 'string' },
        'max-connections': { type: 'string' },
        'max-sessions': { type: 'string' },
        'max-pending-sockets': { type: 'string' },
        'headers-timeout': { type: 'string' },
        'max-buffered-bytes': { type: 'string' },
        'history-result-bytes': { type: 'string' },
        'history-budget-bytes': { type: 'string' },
        'data-dir': { type: 'string' },
        redis: { type: 'string' },
        'redis-prefix': { type: 'string' },
        replica: { type: 'string' },
        'context-window': { type: 'string' },
        compaction: { type: 'string' },
        'log-level': { type: 'string' },
        'log-format': { type: 'string' },
        'ops-port': { type: 'string' },
        'ops-host': { type: 'string' },
        'drain-timeout': { type: 'string' },
        'credential-check': { type: 'string' },
        help: { type: 'boolean' },
      },
    }));
  } catch (e) {
    throw new UsageError((e as Error).message);
  }

  const logLevel = (values['log-level'] ?? 'info') as LogLevel;
  if (!['debug', 'info', 'warn', 'error'].includes(logLevel)) throw new UsageError(`--log-level must be debug, info, warn or error`);
  const logFormat = values['log-format'] ?? 'text';
  if (logFormat !== 'text' && logFormat !== 'json') throw new UsageError(`--log-format must be text or json, got "${logFormat}"`);
  const strategy = values['disconnect-strategy'];
  if (strategy !== undefined && !(DISCONNECT_STRATEGIES as readonly string[]).includes(strategy)) {
    throw new UsageError(`--disconnect-strategy must be one of ${DISCONNECT_STRATEGIES.join(', ')}`);
  }

  const compaction = values.compaction;
  if (compaction !== undefined && compaction !== 'summarize' && compaction !== 'elide') throw new UsageError('--compaction must be summarize or elide');
  const vision = values.vision as VisionSetting | undefined;
  if (vision !== undefined && !VISION_SETTINGS.includes(vision)) throw new UsageError(`--vision must be auto, on or off, got "${vision}"`);
  const imageMaxSide = values['image-max-side'] !== undefined ? integer('--image-max-side', values['image-max-side'], 16, 16_384) : undefined;

  const token = values.token ?? (env.CLIENT_TOOLS_TOKEN || undefined);
  const tokensFile = values['tokens-file'] !== undefined ? path.resolve(values['tokens-file']) : undefined;
  const jwt = jwtOptions(values);
  // Users come from the file or the JWTs: a random shared token nobody asked for would be a way around them.
  const perUser = tokensFile !== undefined || jwt !== undefined;
  const baseURL = values['base-url'] ?? (env.OPENAI_BASE_URL || undefined);
  const modelName = values.model ?? (env.CLIENT_TOOLS_MODEL || undefined);
  const endpoint = readEndpoint(values, env);
  const offline = values.offline === true || (!baseURL && !modelName && endpoint.provider !== 'azure');
  if (endpoint.provider === 'azure' && values['base-url'] !== undefined) throw new UsageError('--base-url does not apply to --provider azure: use --azure-endpoint');

  const options: BackendOptions = {
    host: values.host,
    port: values.port !== undefined ? integer('--port', values.port, 0, 65535) : undefined,
    token,
    discoveryFile: values['discovery-file'] ?? (token || perUser ? undefined : path.join(os.homedir(), '.client-tools', 'backends', `${process.pid}.json`)),
    tokensFile,
    jwt,
    model: offline ? 'offline' : { ...modelConfig(modelName ?? DEFAULT_MODEL_NAME, baseURL, endpoint, env), ...(vision ? { vision } : {}), ...(imageMaxSide ? { imageMaxSide } : {}) },
    invokeTimeoutMs: values['invoke-timeout'] !== undefined ? duration('--invoke-timeout', values['invoke-timeout']) : undefined,
    disconnectStrategy: strategy as DisconnectStrategy | undefined,
    maxRetries: values['max-retries'] !== undefined ? integer('--max-retries', values['max-retries'], 0, 100) : undefined,
    leaseMs: values['lease-ms'] !== undefined ? integer('--lease-ms', values['lease-ms'], 100, 600_000) : undefined,
    maxTurns: values['max-turns'] !== undefined ? integer('--max-turns', values['max-turns'], 1, 1000) : undefined,
    modelTimeoutMs: values['model-timeout'] !== undefined ? duration('--model-timeout', values['model-timeout']) : undefined,
    modelFirstByteTimeoutMs: values['model-first-byte-timeout'] !== undefined ? duration('--model-first-byte-timeout', values['model-first-byte-timeout']) : undefined,
    modelIdleTimeoutMs: values['model-idle-timeout'] !== undefined ? duration('--model-idle-timeout', values['model-idle-timeout']) : undefined,
    modelRetries: values['model-retries'] !== undefined ? integer('--model-retries', values['model-retries'], 0, 10) : undefined,
    modelMaxAnswerBytes: values['model-max-answer-bytes'] !== undefined ? size('--model-max-answer-bytes', values['model-max-answer-bytes']) : undefined,
    maxToolArgumentBytes: values['max-tool-argument-bytes'] !== undefined ? size('--max-tool-argument-bytes', values['max-tool-argument-bytes']) : undefined,
    maxRunsPerSession: values['max-runs-per-session'] !== undefined ? integer('--max-runs-per-session', values['max-runs-per-session'], 1, 10_000) : undefined,
    maxThreadsPerSession: values['max-threads-per-session'] !== undefined ? integer('--max-threads-per-session', values['max-threads-per-session'], 1, 100_000) : undefined,
    maxConnectionsPerUser: values['max-connections-per-user'] !== undefined ? integer('--max-connections-per-user', values['max-connections-per-user'], 1, 10_000) : undefined,
    maxSessionsPerUser: values['max-sessions-per-user'] !== undefined ? integer('--max-sessions-per-user', values['max-sessions-per-user'], 1, 100_000) : undefined,
    maxConnections: values['max-connections'] !== undefined ? integer('--max-connections', values['max-connections'], 1, 10_000) : undefined,
    maxSessions: values['max-sessions'] !== undefined ? integer('--max-sessions', values['max-sessions'], 1, 100_000) : undefined,
    maxPendingSockets: values['max-pending-sockets'] !== undefined ? integer('--max-pending-sockets', values['max-pending-sockets'], 1, 100_000) : undefined,
    headersTimeoutMs: values['headers-timeout'] !== undefined ? duration('--headers-timeout', values['headers-timeout']) : undefined,
    maxBufferedBytes: values['max-buffered-bytes'] !== undefined ? size('--max-buffered-bytes', values['max-buffered-bytes']) : undefined,
    historyResultBytes: values['history-result-bytes'] !== undefined ? size('--history-result-bytes', values['history-result-bytes']) : undefined,
    historyBudgetBytes: values['history-budget-bytes'] !== undefined ? size('--history-budget-bytes', values['history-budget-bytes']) : undefined,
    dataDir: dataDir(values['data-dir']),
    ...redisFlags(values, env),
    contextWindow: values['context-window'] !== undefined ? integer('--context-window', values['context-window'], 1024, 100_000_000) : undefined,
    compaction,
    opsPort: values['ops-port'] !== undefined ? integer('--ops-port', values['ops-port'], 0, 65535) : undefined,
    opsHost: values['ops-host'],
    drainTimeoutMs: values['drain-timeout'] !== undefined ? duration('--drain-timeout', values['drain-timeout']) : undefined,
    credentialCheckMs: values['credential-check'] !== undefined ? duration('--credential-check', values['credential-check']) : undefined,
  };
  return { help: values.help === true, options, logLevel, logFormat, randomToken: token === undefined && options.discoveryFile !== undefined };
}

interface JwtFlags {
  'jwt-issuer'?: string;
  'jwt-audience'?: string;
  'jwt-jwks-file'?: string;
  'jwt-jwks-url'?: string;
  'jwt-user-claim'?: string;
}

/** The JWT flags, all or none: a verifier without an issuer, an audience or keys would accept too much. */
function jwtOptions(values: JwtFlags): JwtOptions | undefined {
  const given = (['jwt-issuer', 'jwt-audience', 'jwt-jwks-file', 'jwt-jwks-url', 'jwt-user-claim'] as const).filter((f) => values[f] !== undefined);
  if (given.length === 0) return undefined;
  const issuer = values['jwt-issuer'];
  const audience = values['jwt-audience'];
  if (!issuer || !audience) throw new UsageError(`--${given[0]} needs both --jwt-issuer and --jwt-audience`);
  const file = values['jwt-jwks-file'];
  const url = values['jwt-jwks-url'];
  if ((file === undefined) === (url === undefined)) throw new UsageError('JWT needs exactly one of --jwt-jwks-file and --jwt-jwks-url');
  return {
    issuer,
    audience,
    ...(file !== undefined ? { jwksFile: path.resolve(file) } : { jwksUrl: url }),
    ...(values['jwt-user-claim'] ? { userClaim: values['jwt-user-claim'] } : {}),
  };
}

function dataDir(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  if (text.trim() === '') throw new UsageError('--data-dir must name a folder');
  return path.resolve(text);
}

/** --redis (or CLIENT_TOOLS_REDIS_URL), --redis-prefix, --replica; Redis and a data folder exclude each other. */
function redisFlags(values: { redis?: string; 'redis-prefix'?: string; replica?: string; 'data-dir'?: string }, env: NodeJS.ProcessEnv): Pick<BackendOptions, 'redis' | 'redisPrefix' | 'replica'> {
  const redis = values.redis ?? (env.CLIENT_TOOLS_REDIS_URL || undefined);
  if (redis === undefined) {
    if (values['redis-prefix'] !== undefined) throw new UsageError('--redis-prefix needs --redis');
    return values.replica !== undefined ? { replica: values.replica } : {};
  }
  if (values['data-dir'] !== undefined) throw new UsageError('--redis and --data-dir cannot be used together: with Redis, conversations are kept in Redis');
  let scheme = '';
  try {
    scheme = new URL(redis).protocol;
  } catch {
    // Reported below without echoing the text, which may hold a password.
  }
  if (scheme !== 'redis:' && scheme !== 'rediss:') throw new UsageError('--redis must be a redis:// or rediss:// URL such as redis://127.0.0.1:6379');
  const prefix = values['redis-prefix'];
  if (prefix !== undefined && !/^[\w:.-]{1,64}$/.test(prefix)) throw new UsageError('--redis-prefix must be 1 to 64 letters, digits, _ : . or -');
  return { redis, ...(prefix !== undefined ? { redisPrefix: prefix } : {}), ...(values.replica !== undefined ? { replica: values.replica } : {}) };
}

interface EndpointFlags {
  api?: string;
  provider?: string;
  'azure-endpoint'?: string;
  'azure-deployment'?: string;
  'azure-api-version'?: string;
}

/** --api, --provider and the Azure flags, checked; Azure flags without `--provider azure` are a mistake worth saying. */
function readEndpoint(values: EndpointFlags, env: NodeJS.ProcessEnv): { api?: ModelApi; provider?: ModelProvider; azure?: OpenAIModelConfig['azure'] } {
  const { api, provider } = values;
  if (api !== undefined && !(MODEL_APIS as readonly string[]).includes(api)) throw new UsageError(`--api must be one of ${MODEL_APIS.join(', ')}`);
  if (provider !== undefined && !(MODEL_PROVIDERS as readonly string[]).includes(provider)) throw new UsageError(`--provider must be one of ${MODEL_PROVIDERS.join(', ')}`);
  const azureFlags = (['azure-endpoint', 'azure-deployment', 'azure-api-version'] as const).filter((f) => values[f] !== undefined);
  if (provider !== 'azure') {
    if (azureFlags.length) throw new UsageError(`--${azureFlags[0]} needs --provider azure`);
    return { ...(api ? { api: api as ModelApi } : {}), ...(provider ? { provider: provider as ModelProvider } : {}) };
  }
  const endpoint = values['azure-endpoint'] ?? (env.AZURE_OPENAI_ENDPOINT || undefined);
  if (!endpoint) throw new UsageError('--provider azure needs --azure-endpoint (or AZURE_OPENAI_ENDPOINT)');
  const deployment = values['azure-deployment'];
  const entraToken = env.AZURE_OPENAI_AD_TOKEN || undefined;
  return {
    ...(api ? { api: api as ModelApi } : {}),
    provider: 'azure',
    azure: {
      endpoint,
      apiVersion: values['azure-api-version'] ?? (env.OPENAI_API_VERSION || DEFAULT_AZURE_API_VERSION),
      ...(deployment ? { deployment } : {}),
      ...(entraToken ? { entraToken } : {}),
    },
  };
}

function modelConfig(model: string, baseURL: string | undefined, endpoint: ReturnType<typeof readEndpoint>, env: NodeJS.ProcessEnv): OpenAIModelConfig {
  if (endpoint.provider === 'azure') {
    // A token replaces the key; the extension passes its stored key as OPENAI_API_KEY whatever the provider.
    const apiKey = endpoint.azure?.entraToken ? undefined : env.AZURE_OPENAI_API_KEY || env.OPENAI_API_KEY || undefined;
    return { model, apiKey, ...endpoint };
  }
  return { model, baseURL, apiKey: env.OPENAI_API_KEY || undefined, ...endpoint };
}

function integer(flag: string, text: string, min: number, max: number): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < min || n > max) throw new UsageError(`${flag} must be an integer from ${min} to ${max}, got "${text}"`);
  return n;
}

/** "65536", "64KiB", "64MiB" → bytes. */
function size(flag: string, text: string): number {
  const m = /^(\d+)(KiB|MiB)?$/.exec(text.trim());
  const bytes = m ? Number(m[1]) * (m[2] === 'KiB' ? 1024 : m[2] === 'MiB' ? 1024 * 1024 : 1) : NaN;
  if (!(bytes >= 1) || !Number.isSafeInteger(bytes)) throw new UsageError(`${flag} must be a size such as 65536, 64KiB or 64MiB, got "${text}"`);
  return bytes;
}

/** "30000", "30000ms", "30s", "2m" → milliseconds. */
function duration(flag: string, text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text.trim());
  const ms = m ? Number(m[1]) * (m[2] === 's' ? 1000 : m[2] === 'm' ? 60_000 : 1) : NaN;
  if (!(ms >= 1)) throw new UsageError(`${flag} must be a duration such as 30000, 30s or 2m, got "${text}"`);
  return Math.round(ms);
}

export async function main(argv: string[] = process.argv.slice(2), env: NodeJS.ProcessEnv = process.env): Promise<number> {
  if (argv[0] === 'tokens') return runTokensCommand(argv.slice(1), { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) });
  let config: CliConfig;
  try {
    config = parseCli(argv, env);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`client-tools-backend: ${e.message}\n\n${USAGE}`);
    return 2;
  }
  if (config.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const log = config.logFormat === 'json' ? jsonLogger(config.logLevel) : stderrLogger(config.logLevel);
  let backend: Backend;
  try {
    backend = await createBackend({ ...config.options, log });
  } catch (e) {
    log.error(`could not start: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
  if (config.randomToken) log.info(`the connection token is in ${config.options.discoveryFile}`);
  process.stdout.write(`${JSON.stringify({ event: 'listening', port: backend.port })}\n`);

  await new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      process.off('SIGTERM', drain);
      log.info(`${signal}: shutting down`);
      resolve();
    };
    // SIGTERM is how orchestrators stop a replica for a rolling restart: drain first. A second
    // SIGTERM or a SIGINT during the drain stops at once.
    const drain = () => {
      process.off('SIGTERM', drain);
      process.once('SIGTERM', stop);
      log.info('SIGTERM: draining');
      backend.drain().then(
        () => stop('SIGTERM'),
        (e: unknown) => {
          log.error(`draining failed: ${e instanceof Error ? e.message : String(e)}`);
          stop('SIGTERM');
        },
      );
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', drain);
  });
  await backend.close();
  return 0;
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (e: unknown) => {
      process.stderr.write(`client-tools-backend: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      process.exit(1);
    },
  );
}
