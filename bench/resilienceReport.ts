/** The lines of sections 6 (soak) and 7 (attacks), for `npm run bench` and bench/resilience.ts alike. */
import type { AttackResult } from './attacks';
import { ATTACK_BOUND_MS } from './attacks';
import type { SoakResult } from './soak';
import { fmtRate, fmtUs } from './lib/stats';

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

function lpad(s: string, n: number): string {
  return s.length >= n ? s : ' '.repeat(n - s.length) + s;
}

function ms(value: number | undefined): string {
  return value === undefined ? 'n/a' : fmtUs(value * 1000);
}

export function soakLines(soak: SoakResult): string[] {
  const c = soak.counts;
  const lines = [
    `6. Soak: ${soak.clients} clients at once, each running tool-calling turns for ${soak.seconds.toFixed(0)} s (offline demo model; the backend in its own process)`,
    `   turns ${c.turnsCompleted} completed (${fmtRate(soak.turnsPerSecond)}), tool calls ${c.callsAnswered} answered, ${c.callsSucceeded} reported succeeded; lost ${soak.lost}`,
    `   turn latency p50 ${fmtUs(soak.latency.p50Us)}, p99 ${fmtUs(soak.latency.p99Us)}, max ${fmtUs(soak.latency.maxUs)}; ${soak.clients} handshakes in ${soak.connectSeconds.toFixed(1)} s`,
    `   backend RSS ${soak.rssMB.idle.toFixed(0)} MB idle → ${soak.rssMB.connected.toFixed(0)} MB with ${soak.clients} sessions → ${soak.rssMB.end.toFixed(0)} MB after the run: ${soak.rssPerSessionKB.toFixed(0)} KB per session`,
    `   backend event-loop delay over the run: max ${ms(soak.eventLoopDelay.maxMs)}, p99 ${ms(soak.eventLoopDelay.p99Ms)}, mean ${ms(soak.eventLoopDelay.meanMs)}`,
  ];
  if (soak.lost > 0) {
    lines.push(
      `   !!! LOST ${soak.lost}: ${c.callsRequested - c.callsAnswered} calls not answered, ${c.callsAnswered - c.callsSucceeded} answered but not reported succeeded, ${c.turnsFailed} turns failed, ${soak.turnsUnfinished} turns never finished !!!`,
    );
  }
  if (c.errors > 0) lines.push(`   !!! ${c.errors} protocol errors or undecodable frames from the backend !!!`);
  return lines;
}

export function attackLines(attacks: AttackResult[]): string[] {
  const lines = [
    `7. Event-loop delay under attack (the process attacked on its own, a fresh one per attack: the backend, the extension core, the editor's MCP server, the MCP bridge; cut at ${ATTACK_BOUND_MS / 1000} s)`,
    `   ${pad('attack', 44)}${pad('what the process did', 44)}${lpad('max delay', 11)}${lpad('p99', 10)}${lpad('honest peer', 14)}`,
  ];
  for (const a of attacks) {
    const delay = a.eventLoopDelay ? [ms(a.eventLoopDelay.maxMs), ms(a.eventLoopDelay.p99Ms)] : [`≥ ${ATTACK_BOUND_MS / 1000} s`, 'frozen'];
    const outcome = a.hitBound ? `HIT THE BOUND: ${a.outcome}` : a.outcome;
    lines.push(`   ${pad(a.name, 44)}${pad(outcome.length > 42 ? `${outcome.slice(0, 41)}…` : outcome, 44)}${lpad(delay[0], 11)}${lpad(delay[1], 10)}${lpad(a.honestHandshakeMs === undefined ? 'none' : ms(a.honestHandshakeMs), 14)}`);
  }
  const worst = worstAttack(attacks);
  if (worst) lines.push(`   worst: ${worst.name}, ${worst.eventLoopDelay ? `max delay ${ms(worst.eventLoopDelay.maxMs)}` : `froze the backend for at least ${ATTACK_BOUND_MS / 1000} s`}`);
  return lines;
}

/** The attack with the longest event-loop delay (a frozen backend counts as the bound); the baseline excluded. */
export function worstAttack(attacks: AttackResult[]): AttackResult | undefined {
  const delay = (a: AttackResult) => a.eventLoopDelay?.maxMs ?? ATTACK_BOUND_MS;
  return attacks.filter((a) => !a.name.startsWith('none')).sort((a, b) => delay(b) - delay(a))[0];
}

export function worstDelayMs(attacks: AttackResult[]): number {
  const worst = worstAttack(attacks);
  return worst ? (worst.eventLoopDelay?.maxMs ?? ATTACK_BOUND_MS) : 0;
}
