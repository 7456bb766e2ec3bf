/**
 * A caller's lifetime in the dispatcher (src/core/consent/callerLifetime.ts): when it ends, every call it
 * carries ends with its code, an open prompt closes, and nothing more runs; a call whose caller is
 * gone before it is dispatched runs nothing; a call that ended lets go of the lifetime.
 */
import * as assert from 'node:assert/strict';
import { CallerLifetime } from '../../../../src/core/consent/callerLifetime';
import { defineTool, textResult } from '../../../../src/core/tool';
import { ErrorCode } from '../../../../src/protocol';
import { DispatchHarness } from '../../../support/dispatch-harness';
import { createTempWorkspace, type TempWorkspace } from '../../../support/fake-host';

describe('caller lifetime', () => {
  let ws: TempWorkspace;
  let h: DispatchHarness;
  let runs = 0;
  beforeEach(async () => {
    ws = await createTempWorkspace();
    runs = 0;
    const asks = defineTool({ name: 'Asks', group: 'Tests', description: 'asks first', parameters: { type: 'object' }, requiresPermission: true, declineStrategy: 'reject', run: async () => (runs++, textResult('ran')) });
    const quick = defineTool({ name: 'Quick', group: 'Tests', description: 'no prompt', parameters: { type: 'object' }, requiresPermission: false, declineStrategy: 'reject', run: async () => (runs++, textResult('ran')) });
    h = new DispatchHarness({ host: ws.host, tools: [asks, quick] });
  });
  afterEach(async () => {
    h.dispose();
    await ws.dispose();
  });

  const invoke = (tool: string, lifetime: CallerLifetime, id: string) => {
    h.dispatcher.handleInvoke({ type: 'clientToolInvokeRequest', requestId: id, callId: id, toolName: tool, arguments: {} }, { kind: 'backend', userRun: true, lifetime });
    return h.response(id);
  };

  it('ends every call it carries with its code: the open prompt closes, an Allow afterwards runs nothing', async () => {
    ws.host.holdPrompts();
    const lifetime = new CallerLifetime();
    const answers = [invoke('Asks', lifetime, 'a'), invoke('Asks', lifetime, 'b')];
    const held = await ws.host.nextPrompt();
    lifetime.end(ErrorCode.Disconnected, 'the caller went away');
    assert.equal(await held.closed, 'aborted');
    held.answer('allow');
    for (const r of await Promise.all(answers)) assert.deepEqual([r.errorCode, r.errorMessage], [ErrorCode.Disconnected, 'the caller went away']);
    assert.equal(runs, 0);
    assert.equal(h.dispatcher.inFlight, 0);
  });

  it('a call whose caller is gone already runs nothing and is answered with the reason', async () => {
    const lifetime = new CallerLifetime();
    lifetime.end(ErrorCode.Cancelled, 'gone before the call');
    const r = await invoke('Quick', lifetime, 'late');
    assert.equal(r.errorCode, ErrorCode.Cancelled);
    assert.equal(runs, 0);
    assert.equal(h.dispatcher.inFlight, 0);
  });

  it('serves many calls without growing: a finished call stops listening, and ending later changes nothing for it', async () => {
    const lifetime = new CallerLifetime();
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => invoke('Quick', lifetime, `q${i}`)));
      assert.ok(answers.every((r) => r.success));
      lifetime.end(ErrorCode.Cancelled, 'done');
      assert.equal(h.sent.filter((m) => m.type === 'clientToolInvokeResponse').length, 50, 'no second answer for a finished call');
      await new Promise((r) => setImmediate(r));
      assert.deepEqual(warnings, []);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('until(signal) ends when the signal aborts, once', () => {
    const controller = new AbortController();
    const lifetime = CallerLifetime.until(controller.signal, ErrorCode.Cancelled, 'aborted');
    const seen: string[] = [];
    lifetime.onEnd((r) => seen.push(r.message));
    controller.abort();
    lifetime.end(ErrorCode.Disconnected, 'again');
    lifetime.onEnd((r) => seen.push(`late: ${r.code}`));
    assert.deepEqual(seen, ['aborted', 'late: CANCELLED']);
  });
});
