/**
 * The one Redis connection a replica holds, set up to fail fast: while Redis is down a command is
 * refused at once (no offline queue) instead of waiting for a reconnect, a command in flight when the
 * connection drops is failed rather than sent again (an append must not land twice), and a command
 * that gets no answer gives up after `commandTimeoutMs`. ioredis reconnects in the background, so
 * the replica works again as soon as Redis is back, without a restart.
 *
 * Every failure leaves here as a coded error; the URL's credentials are never part of one.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from '../log';
import { StoreError } from '../store/conversationStore';
import { ACQUIRE_LEASE, APPEND, DELETE_CALL, LOAD, LOAD_BLOBS, PUT_CALL, RELEASE_LEASE, SETTLE_CALL } from './redisScripts';
import { SharedStateError } from './sharedState';

export interface RedisConnectionOptions {
  /** `redis://[user:password@]host:port[/db]` or `rediss://…` for TLS. */
  url: string;
  /** Milliseconds a command may wait for its answer (default 2,000). */
  commandTimeoutMs?: number;
  /** Milliseconds the first connection may take (default 5,000). */
  connectTimeoutMs?: number;
  log?: Logger;
}

type Arg = string | number | Buffer;

/** The connection with the scripts defined on it (ioredis adds one method per script, and a `…Buffer` twin). */
export interface ScriptedRedis extends Redis {
  ctSettleCall(key: string, outcome: string): Promise<number>;
  ctPutCall(call: string, index: string, counter: string, ...argv: Arg[]): Promise<number>;
  ctDeleteCall(call: string, indexPrefix: string): Promise<number>;
  ctAcquireLease(lease: string, counter: string, fence: string, ...argv: Arg[]): Promise<[number, number] | null>;
  ctReleaseLease(lease: string, holder: string, fence: number): Promise<number>;
  ctAppend(...keysThenArgv: Arg[]): Promise<number>;
  ctLoad(log: string, meta: string, cap: number): Promise<string[] | null>;
  ctLoadBlobsBuffer(blobs: string, cap: number, ...digests: string[]): Promise<(Buffer | null)[]>;
}

export async function connectRedis(o: RedisConnectionOptions): Promise<ScriptedRedis> {
  const where = redactedUrl(o.url);
  // Loaded here, by the backends that use Redis: every other one (the extension's bundled one) starts without it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, on purpose
  const { Redis: RedisClient } = require('ioredis') as typeof import('ioredis');
  const redis = new RedisClient(o.url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 0,
    commandTimeout: o.commandTimeoutMs ?? 2_000,
    connectTimeout: o.connectTimeoutMs ?? 5_000,
    retryStrategy: (attempt) => Math.min(100 * attempt, 1_000),
  }) as ScriptedRedis;
  let lastError = '';
  let lost = false;
  let ready = false;
  // Without a listener ioredis prints every failed reconnect; one line per kind of failure is enough.
  // Before the first connection the failure is the error `connectRedis` throws, not a log line.
  redis.on('error', (e: Error) => {
    if (e.message === lastError) return;
    lastError = e.message;
    if (ready) o.log?.warn(`Redis at ${where}: ${e.message}`);
  });
  redis.on('close', () => {
    if (lost || !ready || closing.has(redis)) return;
    lost = true;
    o.log?.warn(`Redis at ${where}: connection lost; commands fail until it is back`);
  });
  redis.on('ready', () => {
    if (lost) o.log?.info(`Redis at ${where}: connected again`);
    lost = false;
    ready = true;
    lastError = '';
  });
  redis.defineCommand('ctSettleCall', { numberOfKeys: 1, lua: SETTLE_CALL });
  redis.defineCommand('ctPutCall', { numberOfKeys: 3, lua: PUT_CALL });
  redis.defineCommand('ctDeleteCall', { numberOfKeys: 1, lua: DELETE_CALL });
  redis.defineCommand('ctAcquireLease', { numberOfKeys: 3, lua: ACQUIRE_LEASE });
  redis.defineCommand('ctReleaseLease', { numberOfKeys: 1, lua: RELEASE_LEASE });
  redis.defineCommand('ctAppend', { numberOfKeys: 5, lua: APPEND });
  redis.defineCommand('ctLoad', { numberOfKeys: 2, lua: LOAD });
  redis.defineCommand('ctLoadBlobs', { numberOfKeys: 1, lua: LOAD_BLOBS });
  try {
    await redis.connect();
  } catch (e) {
    redis.disconnect();
    throw new SharedStateError('STATE_UNAVAILABLE', `Redis at ${where} could not be reached: ${lastError || messageOf(e)}`);
  }
  return redis;
}

/** Connections being closed on purpose: their `close` is no outage. */
const closing = new WeakSet<Redis>();

/** Closes the connection (QUIT, or a hard disconnect when Redis is not there to answer). */
export async function closeRedis(redis: Redis): Promise<void> {
  closing.add(redis);
  await redis.quit().catch(() => redis.disconnect());
}

/** The URL without user name or password, for logs and errors. */
export function redactedUrl(url: string): string {
  try {
    const u = new URL(url);
    const auth = u.username || u.password ? '***@' : '';
    return `${u.protocol}//${auth}${u.host}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return '(an unparsable URL)';
  }
}

/** A failure as the caller must see it: our scripts' refusals by their code, anything else as Redis being unavailable. */
export function stateError(e: unknown): Error {
  if (e instanceof SharedStateError || e instanceof StoreError) return e;
  const message = messageOf(e);
  if (message.startsWith('CT_FENCED')) return new SharedStateError('STORE_FENCED', `A newer lease on the thread (fence ${message.slice(10)}) superseded this replica's; the append was refused.`);
  if (message.startsWith('CT_TOO_LARGE')) return new StoreError('STORE_TOO_LARGE', `The thread would hold ${message.slice(13)} bytes in Redis, over its cap.`);
  return new SharedStateError('STATE_UNAVAILABLE', `Redis is unavailable: ${message}`);
}

/** Runs a Redis operation, its failure mapped by `stateError`. */
export async function guarded<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    throw stateError(e);
  }
}

/** Key part for a peer's text (thread ids): bounded, and never another key's syntax. */
export function keyOf(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 40);
}

function messageOf(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).slice(0, 500);
}
