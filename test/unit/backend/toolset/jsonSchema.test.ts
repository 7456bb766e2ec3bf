/**
 * The backend's JSON Schema checks on their own: what a parameter schema may contain (limits,
 * `$ref`s, RE2 patterns), and how arguments are validated (own properties only, linear
 * `uniqueItems`, a `$id` per schema rather than per process). Each limit is named in its error.
 */
import { strict as assert } from 'node:assert';
import { ErrorCode } from '../../../../src/protocol';
import { checkArguments, checkParameters, compileParameters } from '../../../../src/backend/toolset/jsonSchema';
import { SCHEMA_LIMITS } from '../../../../src/backend/toolset/schemaShape';

function refused(schema: object): { code: string; reason: string } {
  const check = checkParameters(schema);
  if (check.ok) assert.fail('the schema was accepted');
  return check;
}

function validator(schema: object) {
  const compiled = compileParameters(schema);
  assert.ok(compiled.ok, compiled.ok ? '' : compiled.reason);
  return compiled.validate;
}

/** `{ type: 'object', properties: { a: { properties: { a: … } } } }`, `levels` deep, built without recursion. */
function nested(levels: number): Record<string, unknown> {
  let inner: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < levels; i++) inner = { type: 'object', properties: { a: inner } };
  return inner;
}

describe('backend JSON Schema checks', () => {
  describe('patterns run on RE2', () => {
    it('refuses lookaround and backreferences at registration with INVALID_SCHEMA naming the pattern', () => {
      for (const pattern of ['^(?=.*\\d)\\w+$', '(?<!x)y', '^(a)\\1$']) {
        const r = refused({ type: 'object', properties: { p: { type: 'string', pattern } } });
        assert.equal(r.code, ErrorCode.InvalidSchema);
        assert.ok(r.reason.includes(JSON.stringify(pattern)), r.reason);
        assert.match(r.reason, /RE2/);
      }
      const r = refused({ type: 'object', patternProperties: { '^(?!x)': { type: 'string' } } });
      assert.ok(r.reason.includes('"^(?!x)"'), r.reason);
    });

    it('checks patterns and patternProperties with ECMAScript spellings (\\d, \\u00e9, named groups) and finds matches anywhere', () => {
      const validate = validator({
        type: 'object',
        properties: { id: { type: 'string', pattern: '^[A-Z]{2}\\d{3}$' }, word: { type: 'string', pattern: '\\u00e9(?<rest>t)' } },
        patternProperties: { '^x-': { type: 'integer' } },
      });
      assert.equal(checkArguments(validate, { id: 'AB123', word: 'café ét', 'x-n': 3 }).ok, true);
      const bad = checkArguments(validate, { id: 'AB1234' });
      assert.ok(!bad.ok && /"id" must match pattern/.test(bad.reason), JSON.stringify(bad));
      assert.equal(checkArguments(validate, { 'x-n': 'three' }).ok, false);
    });

    it('checks ^(a+)+$ against 100,000 characters in linear time (the backtracking engine needs 3.6 s for 31)', () => {
      const validate = validator({ type: 'object', properties: { p: { type: 'string', pattern: '^(a+)+$' } } });
      const started = Date.now();
      const r = checkArguments(validate, { p: `${'a'.repeat(100_000)}b` });
      assert.equal(r.ok, false);
      assert.ok(Date.now() - started < 5_000, `took ${Date.now() - started} ms`);
    });

    it('keeps patterns apart: two patterns in one schema are not confused with each other', () => {
      const validate = validator({ type: 'object', properties: { a: { type: 'string', pattern: '^a$' }, b: { type: 'string', pattern: '^b$' } } });
      assert.equal(checkArguments(validate, { a: 'a', b: 'b' }).ok, true);
      assert.equal(checkArguments(validate, { a: 'a', b: 'a' }).ok, false);
    });
  });

  describe('limits, each named in its LIMIT_EXCEEDED error', () => {
    it('a schema nested 1,500 deep is refused (schema depth) without overflowing the stack; 20 deep is fine', () => {
      const r = refused(nested(1_500));
      assert.equal(r.code, ErrorCode.LimitExceeded);
      assert.match(r.reason, /"schema depth" is 64/);
      const deepArray: unknown[] = [];
      let cursor = deepArray;
      for (let i = 0; i < 100_000; i++) cursor.push((cursor = []));
      assert.equal(refused({ type: 'object', default: deepArray }).code, ErrorCode.LimitExceeded);
      assert.ok(checkParameters(nested(20)).ok);
    });

    it('patterns over 1,000 characters, or compiling to more than 20,000 RE2 instructions per schema, are refused (pattern length, pattern size per schema)', () => {
      const long = refused({ type: 'object', properties: { p: { type: 'string', pattern: 'a'.repeat(1001) } } });
      assert.equal(long.code, ErrorCode.LimitExceeded);
      assert.match(long.reason, /"pattern length" is 1000/);
      // Counted repetition multiplies the program: 11 characters, a thousand instructions.
      const properties = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`p${i}`, { type: 'string', pattern: `[a-z]{1000}${i}` }]));
      const big = refused({ type: 'object', properties });
      assert.equal(big.code, ErrorCode.LimitExceeded);
      assert.match(big.reason, /"pattern size per schema" is 20000/);
      assert.ok(checkParameters({ type: 'object', properties: Object.fromEntries(Object.entries(properties).slice(0, 15)) }).ok);
    });

    it('a schema over 128 KiB is refused (schema size)', () => {
      const r = refused({ type: 'object', description: 'x'.repeat(SCHEMA_LIMITS.maxBytes) });
      assert.equal(r.code, ErrorCode.LimitExceeded);
      assert.match(r.reason, /"schema size" is 131072 bytes/);
    });

    it('a 2 KB $ref fan-out worth 2^30 subschemas is refused ($ref expansion); shared definitions that stay small are fine', () => {
      const $defs: Record<string, unknown> = { d0: { type: 'string' } };
      for (let i = 1; i <= 30; i++) $defs[`d${i}`] = { allOf: [{ $ref: `#/$defs/d${i - 1}` }, { $ref: `#/$defs/d${i - 1}` }] };
      const fanOut = { type: 'object', $defs, properties: { p: { $ref: '#/$defs/d30' } } };
      assert.ok(JSON.stringify(fanOut).length < 2_500);
      const r = refused(fanOut);
      assert.equal(r.code, ErrorCode.LimitExceeded);
      assert.match(r.reason, /"\$ref expansion" is 1000/);

      // The same fan-out hidden where nothing but a $ref treats it as a schema.
      const hiddenDefs: Record<string, unknown> = { d0: { type: 'string' } };
      for (let i = 1; i <= 30; i++) hiddenDefs[`d${i}`] = { allOf: [{ $ref: `#/default/d${i - 1}` }, { $ref: `#/default/d${i - 1}` }] };
      const hidden = { type: 'object', default: hiddenDefs, properties: { p: { $ref: '#/default/d30' } } };
      assert.equal(refused(hidden).code, ErrorCode.LimitExceeded);
      const hiddenPattern = refused({ type: 'object', examples: [{ pattern: '(?=x)' }], properties: { p: { $ref: '#/examples/0' } } });
      assert.equal(hiddenPattern.code, ErrorCode.InvalidSchema);
      assert.ok(checkParameters({ type: 'object', examples: [{ pattern: '(?=x)' }] }).ok, 'data that is never used as a schema was checked as one');

      const shared = { type: 'object', $defs: { 'a/b': { type: 'integer', minimum: 0 } }, properties: { x: { $ref: '#/$defs/a~1b' }, y: { $ref: '#/$defs/a~1b' } } };
      const validate = validator(shared);
      assert.equal(checkArguments(validate, { x: 1, y: '2' }).ok, true);
      assert.equal(checkArguments(validate, { x: -1 }).ok, false);
    });

    it('refuses recursive, remote and dangling $refs, $dynamicRef and a nested $id with INVALID_SCHEMA', () => {
      const cases: [object, RegExp][] = [
        [{ type: 'object', $defs: { n: { anyOf: [{ $ref: '#/$defs/n' }] } }, properties: { p: { $ref: '#/$defs/n' } } }, /recursive/],
        [{ type: 'object', properties: { p: { $ref: '#' } } }, /recursive/],
        [{ type: 'object', properties: { p: { $ref: 'https://example.com/s.json' } } }, /only local references/],
        [{ type: 'object', properties: { p: { $ref: '#/$defs/missing' } } }, /points at nothing/],
        [{ type: 'object', properties: { p: { $ref: '#/$defs/toString' } } }, /points at nothing/],
        [{ type: 'object', properties: { p: { $dynamicRef: '#x' } } }, /\$dynamicRef/],
        [{ type: 'object', properties: { p: { $id: 'urn:p', type: 'string' } } }, /\$id/],
      ];
      for (const [schema, why] of cases) {
        const r = refused(schema);
        assert.equal(r.code, ErrorCode.InvalidSchema, JSON.stringify(schema));
        assert.match(r.reason, why);
      }
    });
  });

  describe('arguments', () => {
    it('an optional property named toString, constructor or valueOf may be left out or passed', () => {
      const validate = validator({ type: 'object', properties: { toString: { type: 'string' }, constructor: { type: 'string' }, valueOf: { type: 'integer' } }, additionalProperties: false });
      assert.deepEqual(checkArguments(validate, {}), { ok: true, value: {} });
      assert.equal(checkArguments(validate, { toString: 'x', constructor: 'y', valueOf: '3' }).ok, true);
      const required = validator({ type: 'object', properties: { toString: { type: 'string' } }, required: ['toString'] });
      const missing = checkArguments(required, {});
      assert.ok(!missing.ok && /"toString" is required/.test(missing.reason), JSON.stringify(missing));
    });

    it('uniqueItems finds duplicates whatever the key order, and checks 50,000 objects in linear time', () => {
      const validate = validator({ type: 'object', properties: { list: { type: 'array', uniqueItems: true } } });
      const dup = checkArguments(validate, { list: [{ a: 1, b: [1, { c: 2 }] }, 'x', { b: [1, { c: 2 }], a: 1 }] });
      assert.ok(!dup.ok && /"list" must NOT have duplicate items \(items ## 0 and 2 are identical\)/.test(dup.reason), JSON.stringify(dup));
      assert.equal(checkArguments(validate, { list: [1, '1', [1], { 1: 1 }, null, true, 'true'] }).ok, true);
      const many = Array.from({ length: 50_000 }, (_, i) => ({ id: i, tags: [String(i)] }));
      const started = Date.now();
      assert.equal(checkArguments(validate, { list: many }).ok, true);
      assert.ok(Date.now() - started < 5_000, `took ${Date.now() - started} ms`);
    });

    it('arguments nested 100,000 deep get a reason instead of a stack overflow', () => {
      const validate = validator({ type: 'object', properties: { list: { type: 'array', uniqueItems: true } } });
      let deep: unknown = [];
      for (let i = 0; i < 100_000; i++) deep = [deep];
      const r = checkArguments(validate, { list: [deep, 1] });
      assert.ok(!r.ok && /nested too deeply/.test(r.reason), JSON.stringify(r).slice(0, 200));
    });
  });

  it('the same $id in two schemas (of two tools or two sessions) compiles for both', () => {
    const a = validator({ $id: 'https://tools.example/args.json', type: 'object', properties: { n: { type: 'integer' } } });
    const b = validator({ $id: 'https://tools.example/args.json', type: 'object', properties: { n: { type: 'string' } } });
    assert.equal(checkArguments(a, { n: 1 }).ok, true);
    assert.equal(checkArguments(b, { n: 'one' }).ok, true);
    assert.equal(checkArguments(b, { n: {} }).ok, false);
  });
});
