/**
 * Which cases the fuzzer runs. Every position of every message gets every value class of its kind
 * (hostile.ts); `sampled` then keeps a budget of them per entry point, with a fixed seed so that a
 * run is the same every time and takes minutes on two cores: every position one value (a field met
 * in several places of a message counts once), every value class once, every message type one value of a megabyte or more, the rest drawn at random. Before
 * that, two costly dimensions are sampled:
 * - the character sweep (a run of each character that means something to a parser or renderer):
 *   a message's long-text positions share the characters, each at least SWEEP_PER_POSITION of them,
 *   so every message type meets every character;
 * - the value that fills the whole message: every unbounded position, and one bounded string of the
 *   entry point (for a bounded field the limit check is what runs, the same for every field).
 * `CLIENT_TOOLS_FUZZ_FULL=1` runs every case; `CLIENT_TOOLS_FUZZ_SEED` changes the sample;
 * `CLIENT_TOOLS_FUZZ_ONLY=<regex>` keeps the cases whose `entry message position value` matches.
 */
import { RUN_CHARACTERS, valuesFor, withFragment, type HostileValue } from './hostile';
import { setAt, type Json, type Position, type Shape } from './shape';

export const SEED = Number(process.env.CLIENT_TOOLS_FUZZ_SEED ?? 25);
export const FULL = process.env.CLIENT_TOOLS_FUZZ_FULL === '1';
const ONLY = process.env.CLIENT_TOOLS_FUZZ_ONLY ? new RegExp(process.env.CLIENT_TOOLS_FUZZ_ONLY, 'i') : undefined;
const SWEEP_PER_POSITION = 4;
/** Cases per entry point unless CLIENT_TOOLS_FUZZ_FULL=1 (CLIENT_TOOLS_FUZZ_BUDGET sets another). */
export const CASE_BUDGET = Number(process.env.CLIENT_TOOLS_FUZZ_BUDGET ?? 200);
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

/** Whether `CLIENT_TOOLS_FUZZ_ONLY` (when set) matches the case's `entry message position value`. */
export function kept(entry: string, c: PlannedCase): boolean {
  return !ONLY || ONLY.test(`${entry} ${c.message} ${c.position.label} ${c.value.label}`);
}

export function planCases(entry: string, plans: readonly MessagePlan[]): PlannedCase[] {
  const random = seeded(SEED);
  const out: PlannedCase[] = [];
  const bounded = plans.flatMap((plan) => plan.shape.positions.filter((p) => p.kind === 'string' && p.maxLength !== undefined));
  const fillBounded = bounded[Math.floor(random() * bounded.length)];
  for (const plan of plans) {
    const base = plan.fixed ? plan.fixed(plan.shape.sample) : plan.shape.sample;
    const budget = plan.limit - Buffer.byteLength(JSON.stringify(base)) - 4096;
    const long = plan.shape.positions.filter((p) => p.kind === 'any' || (p.kind === 'string' && (p.maxLength === undefined || p.maxLength >= LONG_TEXT)));
    const perPosition = FULL ? RUN_CHARACTERS.length : Math.max(SWEEP_PER_POSITION, Math.ceil(RUN_CHARACTERS.length / Math.max(1, long.length)));
    const offset = Math.floor(random() * RUN_CHARACTERS.length);
    for (const position of plan.shape.positions) {
      const index = long.indexOf(position);
      const sweep = index < 0 ? [] : Array.from({ length: Math.min(perPosition, RUN_CHARACTERS.length) }, (_, j) => RUN_CHARACTERS[(offset + index * perPosition + j) % RUN_CHARACTERS.length]);
      const unbounded = (position.kind === 'string' && position.maxLength === undefined) || (position.kind === 'array' && position.maxItems === undefined);
      const fillMessage = FULL || unbounded || position === fillBounded;
      const sample = position.variants.reduce<Json>((s, v) => setAt(s, v.path, v.value), base);
      for (const value of valuesFor(position, { budget, sweep, fillMessage })) {
        const c: PlannedCase = { message: plan.message, position, value, text: (fix) => withFragment(fix ? fix(sample) : sample, position.path, value.text()) };
        if (kept(entry, c)) out.push(c);
      }
    }
  }
  return out;
}

/** Bytes of hostile values a sampled run sends to one entry point, about eight messages at their limit. */
const BYTE_BUDGET = 256 * 1024 * 1024;
/** Values larger than this reach a position only as its message type's one message-sized case, or drawn within the byte budget. */
const SMALL = 4 * 1024 * 1024;

/**
 * At most `budget` of `cases` (more when every position needs one), in their order: every position
 * one value (each position the next of its values in turn, so the classes spread over the
 * positions), every value class of the entry point once, every message type one value of a megabyte
 * or more, then a seeded draw within the byte budget.
 */
export function sampled(cases: readonly PlannedCase[], budget = CASE_BUDGET): PlannedCase[] {
  if (FULL || cases.length <= budget) return [...cases];
  const random = seeded(SEED + 1);
  const chosen = new Set<PlannedCase>();
  let bytes = 0;
  const choose = (c: PlannedCase | undefined) => {
    if (!c || chosen.has(c)) return;
    chosen.add(c);
    bytes += c.value.bytes;
  };
  // A field met in many places of one message (the MCP SDK's content blocks, icons and `_meta` recur
  // all over a sampling request) is one position here: the same schema, the same code reads it.
  const byPosition = groups(cases, (c) => `${c.message}|${fieldOf(c.position)}`);
  [...byPosition.values()].forEach((group, i) => {
    const small = group.filter((c) => c.value.bytes <= SMALL);
    choose(small[(i + SEED) % Math.max(1, small.length)]);
  });
  for (const group of groups(cases, (c) => classOf(c.value.label)).values()) {
    if (!group.some((c) => chosen.has(c))) choose(group[Math.floor(random() * group.length)]);
  }
  for (const group of groups(cases, (c) => c.message).values()) {
    const big = group.filter((c) => c.value.bytes >= 1024 * 1024);
    if (big.length > 0 && !big.some((c) => chosen.has(c))) choose(big[Math.floor(random() * big.length)]);
  }
  const rest = cases.filter((c) => !chosen.has(c));
  while (chosen.size < budget && rest.length > 0) {
    const [c] = rest.splice(Math.floor(random() * rest.length), 1);
    if (bytes + c.value.bytes <= BYTE_BUDGET) choose(c);
  }
  return cases.filter((c) => chosen.has(c));
}

function groups<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = out.get(k);
    if (list) list.push(item);
    else out.set(k, [item]);
  }
  return out;
}

/** A position as a field: the last two steps of its label, its kind and its limit. */
function fieldOf(p: Position): string {
  const steps = p.label.replace(/ \([^)]*\)/g, '').split('.');
  return `${steps.slice(-2).join('.')}|${p.kind}|${p.maxLength ?? p.maxItems ?? ''}`;
}

/** A value's class: its label without sizes and counts (`run 'a' 64 KiB` → `run 'a' #`). */
function classOf(label: string): string {
  return label.replace(/\d[\d,.]*(\s*(KiB|MiB))?/g, '#');
}
