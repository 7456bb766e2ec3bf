/**
 * The backend's Prometheus metrics (`prom-client`), one registry per backend so that several
 * backends in one process (tests, an embedding program) never mix their figures.
 *
 * Counters come from the backend's events; gauges are read from the server when scraped, so they
 * cannot drift from the truth. Labels are codes, outcomes and reasons only: never a session id, a
 * thread id, a user, a path or a tool's arguments (a scrape must not tell who did what). Tool names
 * are left out too: a client registers its own, so they are unbounded.
 *
 * Every label value comes from a closed set: a code a peer sent (a client's `errorCode`, a custom
 * model's failure) that is not one of ours counts as `other`, so no peer can add a series (6,000
 * distinct codes from one client made 6,000 series, never freed).
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { ErrorCode } from '../../protocol';
import type { BackendEventEmitter } from '../events';

/** What the server reports at each scrape. */
export interface ServerStats {
  attachedSessions: number;
  detachedSessions: number;
  clientCallsInFlight: number;
  runsInProgress: number;
  /** Threads the sessions keep in memory. */
  threadsKept: number;
  draining: boolean;
}

/** Codes a label may carry: the protocol's, the shared state's and the store's; anything else is `other`. */
const KNOWN_CODES: ReadonlySet<string> = new Set<string>([...Object.values(ErrorCode), 'STORE_FENCED', 'STORE_UNSAFE', 'STORE_CORRUPT', 'STORE_TOO_LARGE', 'STORE_CLOSED', 'STATE_ERROR']);
const OUTCOMES: ReadonlySet<string> = new Set(['succeeded', 'failed', 'denied', 'skipped', 'cancelled', 'timedOut']);
const REASONS: ReadonlySet<string> = new Set(['completed', 'cancelled', 'error', 'maxTurns']);

/** `value` when it is in `known`, else `other`. */
export function closedLabel(value: string, known: ReadonlySet<string> = KNOWN_CODES): string {
  return known.has(value) ? value : 'other';
}

/** Latency buckets for a model request, in seconds: a streamed answer takes from 100 ms to minutes. */
const MODEL_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

export class BackendMetrics {
  readonly registry = new Registry();
  private readonly modelSeconds: Histogram<'outcome'>;
  private readonly modelErrors: Counter<'code'>;
  private readonly stateErrors: Counter<'code'>;
  private readonly unsubscribe: (() => void)[] = [];

  constructor(events: BackendEventEmitter, stats: () => ServerStats) {
    const registers = [this.registry];
    const sessions = new Gauge({
      name: 'client_tools_sessions',
      help: 'Sessions held by this backend: attached (a client is connected) or detached (waiting to be resumed).',
      labelNames: ['state'] as const,
      registers,
      collect() {
        const s = stats();
        this.set({ state: 'attached' }, s.attachedSessions);
        this.set({ state: 'detached' }, s.detachedSessions);
      },
    });
    void sessions;
    new Gauge({
      name: 'client_tools_client_calls_in_flight',
      help: 'Client tool calls sent to editors and not answered yet.',
      registers,
      collect() {
        this.set(stats().clientCallsInFlight);
      },
    });
    new Gauge({
      name: 'client_tools_runs_in_progress',
      help: 'Runs (model turns with their tool calls) in progress.',
      registers,
      collect() {
        this.set(stats().runsInProgress);
      },
    });
    new Gauge({
      name: 'client_tools_threads_kept',
      help: 'Threads the sessions keep in memory (each session keeps at most maxThreadsPerSession).',
      registers,
      collect() {
        this.set(stats().threadsKept);
      },
    });
    new Gauge({
      name: 'client_tools_draining',
      help: '1 while the backend drains (SIGTERM or drain()): it admits no new connection and hands its sessions over.',
      registers,
      collect() {
        this.set(stats().draining ? 1 : 0);
      },
    });
    const calls = new Counter({
      name: 'client_tools_client_calls_total',
      help: 'Client tool calls that ended, by outcome and error code ("" when the call succeeded, "other" for a code the protocol does not define).',
      labelNames: ['outcome', 'code'] as const,
      registers,
    });
    const runs = new Counter({
      name: 'client_tools_runs_total',
      help: 'Runs that finished, by reason (completed, cancelled, maxTurns, error).',
      labelNames: ['reason'] as const,
      registers,
    });
    this.modelSeconds = new Histogram({
      name: 'client_tools_model_request_seconds',
      help: 'Time from sending a request to the model until its streamed answer ended, by outcome (ok, error).',
      labelNames: ['outcome'] as const,
      buckets: MODEL_BUCKETS,
      registers,
    });
    this.modelErrors = new Counter({
      name: 'client_tools_model_errors_total',
      help: 'Model requests that failed, by error code.',
      labelNames: ['code'] as const,
      registers,
    });
    this.stateErrors = new Counter({
      name: 'client_tools_state_errors_total',
      help: 'Operations on the shared state (Redis) that failed, by error code.',
      labelNames: ['code'] as const,
      registers,
    });
    this.unsubscribe.push(
      events.on('clientCallEnded', (info) => calls.inc({ outcome: closedLabel(info.outcome, OUTCOMES), code: info.errorCode === undefined ? '' : closedLabel(info.errorCode) })),
      events.on('runEvent', (event) => {
        if (event.type === 'runFinished') runs.inc({ reason: closedLabel(event.reason, REASONS) });
      }),
      events.on('stateError', (info) => this.stateErrors.inc({ code: closedLabel(info.code) })),
    );
  }

  /** One model request ended after `seconds`; `errorCode` when it failed. */
  modelRequest(seconds: number, errorCode?: string): void {
    this.modelSeconds.observe({ outcome: errorCode === undefined ? 'ok' : 'error' }, seconds);
    if (errorCode !== undefined) this.modelErrors.inc({ code: closedLabel(errorCode) });
  }

  /** The text exposition format, what `/metrics` answers. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  dispose(): void {
    for (const off of this.unsubscribe.splice(0)) off();
    this.registry.clear();
  }
}
