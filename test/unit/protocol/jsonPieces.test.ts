import * as assert from 'node:assert/strict';
import { parseAcrossTurns, parseInPieces } from '../../../src/protocol/jsonPieces';

/** Runs the generator to its end: the value, and how many times it yielded. */
function parseAll(text: string, pieceChars: number): { value: unknown; pieces: number } {
  const g = parseInPieces(text, pieceChars);
  for (let pieces = 0; ; pieces++) {
    const step = g.next();
    if (step.done) return { value: step.value, pieces };
  }
}

/** A seeded random JSON value: every kind of value, nesting, escapes, repeated keys. */
function randomValue(next: () => number, depth: number): unknown {
  const r = next();
  if (depth > 5 || r < 0.3) {
    const kinds = [() => Math.floor(next() * 2e6) - 1e6, () => next() * 1e-3, () => 1e21 * next(), () => true, () => false, () => null, () => 'plain', () => 'q"uote\\\\ \n\t \u2028 é 😀 \u0000', () => ''];
    return kinds[Math.floor(next() * kinds.length)]();
  }
  const n = Math.floor(next() * 8);
  if (r < 0.65) return Array.from({ length: n }, () => randomValue(next, depth + 1));
  const keys = ['a', 'b', '__proto__', 'constructor', 'k"ey', ''];
  return Object.fromEntries(Array.from({ length: n }, () => [keys[Math.floor(next() * keys.length)], randomValue(next, depth + 1)]));
}

function seeded(seed: number): () => number {
  return () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
}

/** `JSON.stringify` with whitespace put between tokens at random (outside strings). */
function spaced(value: unknown, next: () => number): string {
  const ws = () => [' ', '\n', '\t', '\r', ''][Math.floor(next() * 5)];
  const out = (v: unknown): string => {
    if (Array.isArray(v)) return `[${ws()}${v.map((x) => `${ws()}${out(x)}${ws()}`).join(',')}${ws()}]`;
    if (v && typeof v === 'object') return `{${ws()}${Object.keys(v).map((k) => `${ws()}${JSON.stringify(k)}${ws()}:${ws()}${out((v as Record<string, unknown>)[k])}`).join(',')}${ws()}}`;
    return JSON.stringify(v);
  };
  return out(value);
}

describe('protocol: JSON parsed in pieces (jsonPieces.ts)', () => {
  it('returns what JSON.parse returns, for 500 random texts cut into pieces of 1 to 64 characters', () => {
    const next = seeded(25);
    for (let i = 0; i < 500; i++) {
      const text = spaced(randomValue(next, 0), next);
      const pieceChars = 1 + Math.floor(next() * 64);
      assert.deepEqual(parseAll(text, pieceChars).value, JSON.parse(text), text);
    }
  });

  it('keeps __proto__ an own property and the last of repeated keys, at the first one\'s place, as JSON.parse does', () => {
    const text = `{"__proto__": {"polluted": 1}, "a": [${'1,'.repeat(50)}1], "b": 1, "a": 2}`;
    const value = parseAll(text, 8).value as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(value), Object.prototype);
    assert.deepEqual(Object.getOwnPropertyNames(value), ['__proto__', 'a', 'b']);
    assert.equal(value.a, 2);
    assert.deepEqual(value, JSON.parse(text));
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('throws a SyntaxError for what JSON.parse refuses', () => {
    for (const bad of ['[1,]', '{"a":1,}', '[1 2]', '{"a" 1}', '[1,2', '[1,2]]', '{"a":1}x', '[[1,2,3,4,5,6],]', '{"a":1 "b":2}', '[01]', '{a:1}', '["x]', '[1,2,3,4,5,6,7,8,9}', '']) {
      assert.throws(() => JSON.parse(bad), SyntaxError, `JSON.parse accepts ${bad}`);
      assert.throws(() => parseAll(bad, 2), SyntaxError, bad);
    }
  });

  it('yields about once per piece of text, so no piece is longer than the piece size but a single long string', () => {
    const tools = Array.from({ length: 2000 }, (_, i) => ({ name: `T${i}`, parameters: { type: 'object', properties: { [`p${i}`]: { type: 'string' } } } }));
    const text = JSON.stringify({ type: 'hello', toolGroups: [{ name: 'g', tools }] });
    const { value, pieces } = parseAll(text, 4096);
    assert.deepEqual(value, JSON.parse(text));
    assert.ok(pieces >= text.length / 4096 - 1 && pieces <= (text.length / 4096) * 2, `${pieces} pieces for ${text.length} characters`);
    // A text no longer than a piece is one JSON.parse, without a yield.
    assert.equal(parseAll('{"a":[1,2,3]}', 4096).pieces, 0);
  });

  it('across turns: other work runs between the pieces, and the value comes out whole', async () => {
    const text = JSON.stringify(Array.from({ length: 200_000 }, (_, i) => ({ i })));
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    try {
      assert.deepEqual(await parseAcrossTurns(text, 1), JSON.parse(text));
    } finally {
      clearInterval(timer);
    }
    assert.ok(ticks > 0, 'no timer ran while it was parsed');
    await assert.rejects(parseAcrossTurns(`[${'1,'.repeat(300_000)}]`), SyntaxError);
  });
});
