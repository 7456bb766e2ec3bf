import * as assert from 'node:assert/strict';
import { createAjv, metaSchemaValidator, META_SCHEMA_2020 } from '../../../src/base/jsonSchema';

const COUNT = { type: 'object', properties: { count: { type: 'integer', default: 1 }, tags: { type: 'array', items: { type: 'string' } } }, additionalProperties: false };

describe('base jsonSchema', () => {
  describe('strict mode (the extension)', () => {
    it('refuses what the schema does not allow: nothing is coerced, defaulted or stripped', () => {
      const validate = createAjv('strict').compile(COUNT);
      const args: Record<string, unknown> = { count: '3' };
      assert.equal(validate(args), false);
      assert.deepEqual(args, { count: '3' });
      const empty: Record<string, unknown> = {};
      assert.equal(validate(empty), true);
      assert.deepEqual(empty, {}, 'no default filled in');
      assert.equal(validate({ count: 2, extra: true }), false);
    });

    it('refuses a schema with an unknown keyword (a typo) at compile', () => {
      assert.throws(() => createAjv('strict').compile({ type: 'object', properties: { a: { type: 'string', maxLenght: 3 } } }), /unknown keyword/);
    });
  });

  describe('coercing mode (the backend)', () => {
    it('coerces a model\'s usual slips and fills defaults', () => {
      const validate = createAjv('coercing').compile(COUNT);
      const args: Record<string, unknown> = { count: '3', tags: 'one' };
      assert.equal(validate(args), true);
      assert.deepEqual(args, { count: 3, tags: ['one'] });
      const empty: Record<string, unknown> = {};
      assert.equal(validate(empty), true);
      assert.deepEqual(empty, { count: 1 });
    });

    it('tolerates unknown keywords in a client\'s schema', () => {
      assert.doesNotThrow(() => createAjv('coercing').compile({ type: 'object', 'x-vendor': true, properties: { a: { type: 'string', maxLenght: 3 } } }));
    });

    it('checks uniqueItems with the linear keyword, which names the identical items', () => {
      const validate = createAjv('coercing').compile({ type: 'object', properties: { list: { type: 'array', uniqueItems: true } } });
      assert.equal(validate({ list: [{ a: 1, b: 2 }, { b: 2, a: 1 }] }), false);
      assert.match(validate.errors?.[0]?.message ?? '', /items ## 0 and 1 are identical/);
      assert.equal(validate({ list: [{ a: 1 }, { a: 2 }] }), true);
    });
  });

  for (const mode of ['strict', 'coercing'] as const) {
    describe(`${mode} mode, like the other`, () => {
      it('runs patterns on RE2: a lookahead, which RE2 cannot run, fails to compile', () => {
        assert.throws(() => createAjv(mode).compile({ type: 'object', properties: { a: { type: 'string', pattern: '^(?=a)a$' } } }), /RE2/);
        const validate = createAjv(mode).compile({ type: 'object', properties: { a: { type: 'string', pattern: '^(a+)+$' } } });
        assert.equal(validate({ a: `${'a'.repeat(40)}!` }), false);
        assert.equal(validate({ a: 'aaa' }), true);
      });

      it('reads only own properties: an optional property named toString is absent unless given', () => {
        const validate = createAjv(mode).compile({ type: 'object', properties: { toString: { type: 'string' }, constructor: { type: 'string' } } });
        assert.equal(validate({}), true);
        assert.equal(validate({ toString: {} }), false);
      });
    });
  }

  it('the meta-schema validator refuses a schema that is not JSON Schema 2020-12', () => {
    const meta = metaSchemaValidator();
    assert.equal(meta.validate(META_SCHEMA_2020, { type: 'object', properties: { a: { type: 'strung' } } }), false);
    assert.equal(meta.validate(META_SCHEMA_2020, COUNT), true);
  });
});
