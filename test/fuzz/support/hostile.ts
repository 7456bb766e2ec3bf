/**
 * The pathological values the fuzzer puts into a position, as JSON text (so that what
 * `JSON.stringify` cannot write, 100,000 levels of nesting or a number with 100,000 digits, can be
 * sent): one-character runs from 1 KiB up to the field's limit and the message's, sizes at and just
 * past the limit, runs of the characters parsers and renderers treat specially, long combining
 * sequences, surrogate pairs and lone surrogates, deep nesting, 100,000 keys, huge numbers.
 *
 * Each value has a `ladder` key: values of one ladder grow, and once one of them fails for a
 * position the larger ones are skipped (the failure is already shown, and a quadratic step would
 * only take longer).
 */
import { setAt, type Json, type Position } from './shape';

export interface HostileValue {
  /** The class, for the report: `run 'a' 64 KiB`, `deep arrays 100,000`. */
  label: string;
  /** Approximate size of the JSON text in bytes. */
  bytes: number;
  /** Values of one ladder grow; a failure skips the rest of its ladder for that position. */
  ladder?: string;
  text(): string;
}

export const KiB = 1024;
export const MiB = 1024 * 1024;
const DEEP = [1_000, 100_000];
const MANY_KEYS = 100_000;
/** Characters with a meaning to markdown, regexes, parsers, terminals or the UI sanitiser. */
export const RUN_CHARACTERS = [' ', '\n', '\t', '*', '_', '[', '(', '`', '<', '>', '#', '|', '\\', '"', '=', '-', '.', '!', '&', '$', '{', '0', '\u0000', '\u00a0', '\u200b', '\u202e', 'é'];
/** Each [name, opener, unit]: the opener once, then the unit repeated to the sweep's size. */
const MARKUP: readonly (readonly [string, string, string])[] = [
  ['link opener then spaces', '[a](', ' '],
  ['emphasis openers', '', '*a'],
  ['nested link openers', '', '[a]('],
];
const HUGE_NUMBERS = ['1e308', '-1e308', '1e400', '9007199254740993', `1${'0'.repeat(100_000)}`];

export interface ValueOptions {
  /** Bytes of JSON text the position may take up to the message's limit. */
  budget: number;
  /** Every run character at the sweep size (else the `sweep` picked ones). */
  sweep: readonly string[];
  /** Also the one value that fills the whole message (costly: one per message type is chosen). */
  fillMessage: boolean;
}

export function valuesFor(p: Position, o: ValueOptions): HostileValue[] {
  switch (p.kind) {
    case 'string':
      return [...stringValues(p, o), ...(p.jsonText ? structureValues(o, true) : [])];
    case 'number':
      return numberValues();
    case 'array':
      return arrayValues(p, o);
    case 'object':
      return objectValues(o);
    case 'any':
      return [...stringValues({ ...p, maxLength: undefined }, o), ...structureValues(o, false), ...numberValues().slice(-1)];
  }
}

function stringValues(p: Position, o: ValueOptions): HostileValue[] {
  const limit = p.maxLength;
  const out: HostileValue[] = [];
  const run = (ch: string, n: number, ladder?: string, what = `run '${show(ch)}'`) => out.push(stringValue(`${what} ${size(n)}`, () => ch.repeat(n), n * utf8Width(ch), ladder));
  const maxChars = Math.floor(o.budget / 6);
  if (limit !== undefined && limit < KiB) {
    // A short field: its limit, one past it, 1 KiB, and the invisible-character classes together at the limit.
    for (const n of new Set([limit, limit + 1])) run('a', n, 'a', n === limit ? "run 'a' at the limit," : "run 'a' past the limit,");
    run('a', KiB, 'a');
    if (o.fillMessage) run('a', o.budget, 'a', "run 'a' filling the message,");
    out.push(stringValue(`combining marks, surrogate pairs and lone surrogates ${size(limit)}`, () => mixed(limit), limit * 4));
    return out;
  }
  if (limit !== undefined) {
    run('a', KiB, 'a');
    if (limit > 64 * KiB) run('a', 64 * KiB, 'a');
    for (const n of new Set([limit, limit + 1])) run('a', n, 'a', n === limit ? "run 'a' at the limit," : "run 'a' past the limit,");
  } else {
    for (const n of [KiB, 64 * KiB, MiB]) if (n * 2 < o.budget) run('a', n, 'a');
  }
  if (o.fillMessage) run('a', o.budget, 'a', "run 'a' filling the message,");
  // The sweep: each character's run at the field's limit (else 256 KiB), ending in another character,
  // as a backtracking pattern needs (`\s+$` meets spaces then `x`).
  const sweepChars = Math.min(limit ?? 256 * KiB, 256 * KiB, maxChars);
  for (const ch of o.sweep) {
    const end = ch === 'x' ? 'y' : 'x';
    out.push(stringValue(`run '${show(ch)}' ${size(sweepChars)} then '${end}'`, () => ch.repeat(sweepChars - 1) + end, sweepChars * utf8Width(ch), `sweep ${ch}`));
  }
  // Openers of markdown and link syntax that a parser scans on from: a link target of spaces, emphasis, a code span.
  for (const [what, opener, unit] of MARKUP) {
    out.push(stringValue(`${what} ${size(sweepChars)}`, () => opener + unit.repeat(Math.floor((sweepChars - opener.length) / unit.length)), sweepChars));
  }
  const long = Math.min(limit ?? MiB, MiB, maxChars);
  out.push(stringValue(`combining marks ${size(long)}`, () => `a${'\u0301'.repeat(Math.max(0, long - 1))}`, long * 2));
  out.push(stringValue(`surrogate pairs ${size(long)}`, () => '\u{1F600}'.repeat(Math.floor(long / 2)), long * 2));
  const lone = Math.min(limit ?? 128 * KiB, 128 * KiB, maxChars);
  out.push(stringValue(`lone surrogates ${size(lone)}`, () => '\ud800'.repeat(lone), lone * 6));
  out.push(stringValue(`reversed surrogates ${size(lone)}`, () => '\udc00\ud83d'.repeat(Math.floor(lone / 2)), lone * 6));
  return out;
}

/** `n` characters: combining marks, a surrogate pair, a lone high and a lone low surrogate, in turn. */
function mixed(n: number): string {
  const unit = 'a\u0301\u0301\u{1F600}\ud800x\udc00y';
  return unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
}

function stringValue(label: string, make: () => string, bytes: number, ladder?: string): HostileValue {
  return { label, bytes, ladder, text: () => JSON.stringify(make()) };
}

function numberValues(): HostileValue[] {
  return HUGE_NUMBERS.map((n) => ({ label: `number ${n.length > 20 ? `1 and ${(n.length - 1).toLocaleString('en-US')} zeros` : n}`, bytes: n.length, text: () => n }));
}

function arrayValues(p: Position, o: ValueOptions): HostileValue[] {
  const item = JSON.stringify(p.item ?? 0);
  const out: HostileValue[] = [];
  const many = (n: number, what: string) => out.push({ label: `${what} ${n.toLocaleString('en-US')} items`, bytes: n * (item.length + 1), ladder: 'items', text: () => `[${Array(n).fill(item).join(',')}]` });
  if (p.maxItems !== undefined) {
    many(p.maxItems, 'at the limit,');
    many(p.maxItems + 1, 'past the limit,');
  } else {
    many(10_000, '');
  }
  const fill = Math.floor(o.budget / (item.length + 1));
  if (o.fillMessage && fill > (p.maxItems ?? 10_000)) many(fill, 'filling the message,');
  for (const depth of DEEP) out.push({ label: `nested arrays ${depth.toLocaleString('en-US')} deep`, bytes: depth * 2, ladder: 'deep arrays', text: () => `[${'['.repeat(depth)}${']'.repeat(depth)}]` });
  return out;
}

/** 100,000 keys, or as many as the message has room for (the editor's MCP server takes 1 MiB). */
function keysFor(o: ValueOptions): number {
  return Math.min(MANY_KEYS, Math.floor(o.budget / 12));
}

function objectValues(o: ValueOptions): HostileValue[] {
  const keys = keysFor(o);
  return [
    { label: `${keys.toLocaleString('en-US')} keys`, bytes: keys * 12, text: () => manyKeys(keys) },
    ...DEEP.map((depth) => ({ label: `nested objects ${depth.toLocaleString('en-US')} deep`, bytes: depth * 6, ladder: 'deep objects', text: () => `${'{"a":'.repeat(depth)}{}${'}'.repeat(depth)}` })),
  ];
}

/** Structures for a free position, or inside a JSON text (`asText`: the structure is the string's content). */
function structureValues(o: ValueOptions, asText: boolean): HostileValue[] {
  const wrap = (v: HostileValue): HostileValue => (asText ? { ...v, label: `JSON text: ${v.label}`, ladder: v.ladder && `text ${v.ladder}`, text: () => JSON.stringify(v.text()) } : v);
  const items = Math.min(1_000_000, Math.floor(o.budget / 3));
  return [
    ...DEEP.map((depth) => ({ label: `nested arrays ${depth.toLocaleString('en-US')} deep`, bytes: depth * 2, ladder: 'deep arrays', text: () => `${'['.repeat(depth)}${']'.repeat(depth)}` })),
    ...DEEP.map((depth) => ({ label: `nested objects ${depth.toLocaleString('en-US')} deep`, bytes: depth * 6, ladder: 'deep objects', text: () => `${'{"a":'.repeat(depth)}{}${'}'.repeat(depth)}` })),
    { label: `${keysFor(o).toLocaleString('en-US')} keys`, bytes: keysFor(o) * 12, text: () => manyKeys(keysFor(o)) },
    { label: `array of ${items.toLocaleString('en-US')} zeros`, bytes: items * 2, text: () => `[${Array(items).fill('0').join(',')}]` },
    { label: `string of 'a' ${size(Math.min(o.budget, 8 * MiB))}`, bytes: Math.min(o.budget, 8 * MiB), text: () => JSON.stringify({ a: 'a'.repeat(Math.min(o.budget, 8 * MiB) - 16) }) },
  ].map(wrap);
}

function manyKeys(n: number): string {
  const parts: string[] = [];
  for (let i = 0; i < n; i++) parts.push(`"k${i}":0`);
  return `{${parts.join(',')}}`;
}

/** JSON text of `sample` with `fragment` (JSON text) at `path`, built without copying the fragment twice. */
export function withFragment(sample: Json, path: readonly (string | number)[], fragment: string): string {
  const marker = '\u0000FUZZ\u0000';
  const text = JSON.stringify(setAt(sample, path, marker));
  const quoted = JSON.stringify(marker);
  const at = text.indexOf(quoted);
  return text.slice(0, at) + fragment + text.slice(at + quoted.length);
}

function utf8Width(ch: string): number {
  return Buffer.byteLength(JSON.stringify(ch)) - 2;
}

export function size(n: number): string {
  if (n >= MiB && n % MiB === 0) return `${n / MiB} MiB`;
  if (n >= KiB && n % KiB === 0) return `${n / KiB} KiB`;
  return n.toLocaleString('en-US');
}

function show(ch: string): string {
  const code = ch.codePointAt(0) ?? 0;
  return code < 0x20 || (code >= 0x7f && code <= 0xa0) || (code >= 0x2000 && code <= 0x206f) ? `U+${code.toString(16).toUpperCase().padStart(4, '0')}` : ch;
}
