import * as assert from 'node:assert/strict';
import Ajv2020 from 'ajv/dist/2020';
import { createAjv } from '../../../src/base/jsonSchema';
import { codePoints, withinMaxLength, withinMinLength } from '../../../src/base/stringLength';

/** A seeded generator, so that a failure names a corpus that can be run again. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

/** Strings of ASCII, BMP characters, surrogate pairs and lone surrogates of either half. */
function corpus(count: number): string[] {
  const next = random(33);
  const pieces = ['a', 'é', '中', '😀', '\ud800', '\udc00', '\udbff\udfff'];
  return Array.from({ length: count }, () => {
    let text = '';
    const n = Math.floor(next() * 12);
    for (let i = 0; i < n; i++) text += pieces[Math.floor(next() * pieces.length)];
    return text;
  });
}

describe('maxLength and minLength without counting what length decides (base/stringLength)', () => {
  it('counts code points: a surrogate pair is one character, a lone surrogate one too', () => {
    assert.equal(codePoints(''), 0);
    assert.equal(codePoints('a😀b'), 3);
    assert.equal(codePoints('\ud800'), 1);
    assert.equal(codePoints('\udc00\ud800'), 2);
    assert.equal(codePoints('\ud800\ud800\udc00'), 2);
    for (const text of corpus(500)) assert.equal(codePoints(text), [...text].length, JSON.stringify(text));
  });

  it('decides as counting would, also where length alone cannot', () => {
    for (const text of corpus(500)) {
      const n = [...text].length;
      for (const limit of [0, 1, 2, 3, 5, 8, 13]) {
        assert.equal(withinMaxLength(text, limit), n <= limit, `maxLength ${limit} of ${JSON.stringify(text)}`);
        assert.equal(withinMinLength(text, limit), n >= limit, `minLength ${limit} of ${JSON.stringify(text)}`);
      }
    }
  });

  it('gives the same results and errors as ajv\'s own keywords in every mode', () => {
    const schema = { type: 'object', properties: { s: { type: 'string', minLength: 3, maxLength: 6 } } };
    const reference = new Ajv2020({ strict: false }).compile(schema);
    for (const mode of ['strict', 'coercing', 'lenient'] as const) {
      const validate = createAjv(mode).compile(schema);
      for (const s of corpus(300)) {
        const ok = validate({ s });
        assert.equal(ok, reference({ s }), `${mode}: ${JSON.stringify(s)}`);
        if (!ok) {
          const [mine, theirs] = [validate.errors?.[0], reference.errors?.[0]];
          assert.deepEqual({ ...mine }, { ...theirs }, `${mode}: the error for ${JSON.stringify(s)}`);
        }
      }
    }
  });
});
