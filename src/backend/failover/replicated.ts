/**
 * Whether this backend runs as one of several replicas, and its failover timings. Replicas share
 * state only when it lives outside the process (`--redis`, or a `sharedState` the embedder passed):
 * the in-process default keeps today's behaviour exactly, with no records and no leases.
 */
import type { ResolvedOptions } from '../options';
import type { SharedState } from '../state/sharedState';

/** A run's lease unless `leaseMs` says otherwise: how long a crashed replica's runs wait before another continues them. */
export const DEFAULT_LEASE_MS = 10_000;

export function replicatedState(deps: { options: Pick<ResolvedOptions, 'redis' | 'sharedState'>; state?: SharedState }): SharedState | undefined {
  const { options } = deps;
  return options.redis !== undefined || options.sharedState !== undefined ? deps.state : undefined;
}

export interface FailoverTimings {
  /** Session and call records outlive their last write by the session's grace period. */
  recordTtlMs: number;
  leaseMs: number;
  /** How long an adopting replica waits for a run's lease before it ends the run with a coded error. */
  leaseWaitMs: number;
}

export function failoverTimings(options: ResolvedOptions): FailoverTimings {
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  return { recordTtlMs: options.sessionGraceMs, leaseMs, leaseWaitMs: Math.max(3 * leaseMs, 30_000) };
}
