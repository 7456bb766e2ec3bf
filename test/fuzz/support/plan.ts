/**
 * Which cases the fuzzer runs: every position of every message gets every value class of its kind
 * (hostile.ts); two costly dimensions are sampled with a fixed seed so the run stays within minutes
 * and is the same every time:
 * - the character sweep (a run of each character that means something to a parser or renderer):
 *   a message's long-text positions share the characters, each at least SWEEP_PER_POSITION of them,
 *   so every message type meets every character;
 * - the value that fills the whole message: every unbounded position, and one bounded string per
 *   message type (for a bounded field the limit check is what runs, the same for every field).
 * `CLIENT_TOOLS_FUZZ_FULL=1` runs all of both; `CLIENT_TOOLS_FUZZ_SEED` changes the sample;
 * `CLIENT_TOOLS_FUZZ_ONLY=<regex>` keeps the cases whose `entry message position value` matches.
 */
import { RUN_CHARACTERS, valuesFor, withFragment, type HostileValue } from './hostile';
import { setAt, type Json, type Position, type Shape } from './shape';

export const SEED = Number(process.env.CLIENT_TOOLS_FUZZ_SEED ?? 25);
export const FULL = process.env.CLIENT_TOOLS_FUZZ_FULL === '1';
const ONLY = process.env.CLIENT_TOOLS_FUZZ_ONLY ? new RegExp(process.env.CLIENT_TOOLS_FUZZ_ONLY, 'i') : undefined;
const SWEEP_PER_POSITION = 4;
const LONG_TEXT = 1024;

/** One message with one hostile value in one position. */
export interface PlannedCase {
  message: string;
  position: Position;
  value: HostileValue;
  /** The whole message as JSON text; `fix` sets what only the running scenario knows (a request id), before the value goes in. */
  text(fix?: (sample: Json) => Json): string;
}

export interface MessagePlan {
  /** The message's name in the report (its `type`, or its JSON-RPC method). */
  message: string;
  shape: Shape;
  /** Bytes the whole message may have. */
  limit: number;
  /** Applied to the sample before anything else (ids only the running scenario knows, a chosen tool). */
  fixed?: (sample: Json) => Json;
}

/** A small deterministic generator (mulberry32). */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function planCases(entry: string, plans: readonly MessagePlan[]): PlannedCase[] {
  const random = seeded(SEED);
  const out: PlannedCase[] = [];
  for (const plan of plans) {
    const base = plan.fixed ? plan.fixed(plan.shape.sample) : plan.shape.sample;
    const budget = plan.limit - Buffer.byteLength(JSON.stringify(base)) - 4096;
    const long = plan.shape.positions.filter((p) => p.kind === 'any' || (p.kind === 'string' && (p.maxLength === undefined || p.maxLength >= LONG_TEXT)));
    const perPosition = FULL ? RUN_CHARACTERS.length : Math.max(SWEEP_PER_POSITION, Math.ceil(RUN_CHARACTERS.length / Math.max(1, long.length)));
    const offset = Math.floor(random() * RUN_CHARACTERS.length);
    const bounded = plan.shape.positions.filter((p) => p.kind === 'string' && p.maxLength !== undefined);
    const fillBounded = bounded[Math.floor(random() * bounded.length)];
    for (const position of plan.shape.positions) {
      const index = long.indexOf(position);
      const sweep = index < 0 ? [] : Array.from({ length: Math.min(perPosition, RUN_CHARACTERS.length) }, (_, j) => RUN_CHARACTERS[(offset + index * perPosition + j) % RUN_CHARACTERS.length]);
      const unbounded = (position.kind === 'string' && position.maxLength === undefined) || (position.kind === 'array' && position.maxItems === undefined);
      const fillMessage = FULL || unbounded || position === fillBounded;
      const sample = position.variants.reduce<Json>((s, v) => setAt(s, v.path, v.value), base);
      for (const value of valuesFor(position, { budget, sweep, fillMessage })) {
        const c: PlannedCase = { message: plan.message, position, value, text: (fix) => withFragment(fix ? fix(sample) : sample, position.path, value.text()) };
        if (!ONLY || ONLY.test(`${entry} ${c.message} ${position.label} ${value.label}`)) out.push(c);
      }
    }
  }
  return out;
}
