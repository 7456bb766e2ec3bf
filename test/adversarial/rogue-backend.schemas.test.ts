/**
 * A rogue backend passes arguments crafted against another extension's parameter schema: a
 * backtracking pattern (`^(a+)+$`) with a long almost-matching string. The extension host checks
 * arguments with RE2, so the call is refused with INVALID_ARGUMENTS at once and the extension host's
 * one thread (every extension's) is not held; a pattern RE2 cannot run is refused when the other
 * extension registers its tool, naming the pattern.
 */
import * as assert from 'node:assert/strict';
import { defineTool, textResult } from '../../src/core/tool';
import { CodedError, ErrorCode } from '../../src/protocol';
import { CoreRig } from './support/core-rig';

describe('rogue backend: arguments against other extensions\' patterns', function () {
  this.timeout(120_000);
  let rig: CoreRig;

  afterEach(() => rig.dispose());

  function patterned(name: string, pattern: string) {
    return defineTool<{ id: string }>({
      name, group: 'Other', description: 'another extension\'s tool', requiresPermission: false, declineStrategy: 'reject', availableWhenUntrusted: true,
      parameters: { type: 'object', properties: { id: { type: 'string', pattern } }, required: ['id'], additionalProperties: false },
      run: async (args) => textResult(`got ${args.id}`),
    });
  }

  it('T-SCHEMA-08 ^(a+)+$ against a 41-character argument is refused with INVALID_ARGUMENTS within seconds (backtracking: hours); a valid call then runs', async () => {
    rig = await CoreRig.start();
    rig.core.registry.register({ name: 'Other', description: 'another extension' }, [patterned('Lookup', '^(a+)+$')]);
    await rig.connect();
    const started = Date.now();
    const r = await rig.answer(rig.backend.invoke('Lookup', { id: `${'a'.repeat(40)}b` }), 10_000);
    assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
    assert.equal(r.success, false);
    assert.equal(r.errorCode, ErrorCode.InvalidArguments);
    assert.match(r.errorMessage ?? '', /id/);
    const ok = await rig.answer(rig.backend.invoke('Lookup', { id: 'aaaa' }));
    assert.equal(ok.success, true, ok.errorMessage);
  });

  it('T-SCHEMA-09 a pattern RE2 cannot run (lookahead, backreference) is refused at registration with INVALID_SCHEMA naming it', async () => {
    rig = await CoreRig.start();
    for (const pattern of ['^(?=.*\\d).+$', '^(a)\\1$']) {
      assert.throws(
        () => rig.core.registry.register({ name: 'Other', description: 'another extension' }, [patterned('Lookup', pattern)]),
        (e: unknown) => e instanceof CodedError && e.code === ErrorCode.InvalidSchema && e.message.includes(JSON.stringify(pattern)) && /RE2/.test(e.message),
      );
    }
  });
});
