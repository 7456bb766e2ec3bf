import * as assert from 'node:assert/strict';
import { CodedError, ErrorCode } from '../../../src/protocol';
import { defineTool, textResult, type ClientTool, type ToolContext } from '../../../src/core/tool';
import { DispatchHarness, until } from '../../support/dispatch-harness';
import { createTempWorkspace, type TempWorkspace } from '../../support/fake-host';

const base = { group: 'T', description: 'test', parameters: { type: 'object', properties: { path: { type: 'string' } }, additionalProperties: false }, requiresPermission: false, declineStrategy: 'reject' as const };
const tools: ClientTool[] = [
  defineTool({ ...base, name: 'Throws', run: async () => Promise.reject(new Error('disk on fire')) }),
  defineTool({ ...base, name: 'Missing', run: async () => Promise.reject(new CodedError(ErrorCode.NotFound, 'src/gone.ts does not exist.')) }),
  defineTool({ ...base, name: 'Guarded', requiresPermission: true, run: async () => textResult('ran') }),
  defineTool({ ...base, name: 'Wait', run: (_a: unknown, ctx: ToolContext) => new Promise((_r, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason))) }),
];

/** Issue 14: a backend that forwards `content` to the model must not give it nothing on failure. */
describe('dispatcher: a failed call carries its sentence as text content too', () => {
  let ws: TempWorkspace;
  let h: DispatchHarness;
  beforeEach(async () => {
    ws = await createTempWorkspace();
    h = new DispatchHarness({ host: ws.host, tools, group: { name: 'T', description: 'test' } });
  });
  afterEach(async () => {
    h.dispose();
    await ws.dispose();
  });

  /** The answer's content is exactly one text item equal to errorMessage. */
  function assertSentenceInContent(r: { success: boolean; content: unknown[]; errorMessage?: string; errorCode?: string }, code: string): void {
    assert.equal(r.success, false);
    assert.equal(r.errorCode, code);
    assert.ok(r.errorMessage && r.errorMessage.length > 0);
    assert.deepEqual(r.content, [{ type: 'text', text: r.errorMessage }]);
  }

  it('for a refusal before the tool runs (UNKNOWN_TOOL, INVALID_ARGUMENTS)', async () => {
    assertSentenceInContent(await h.call('Nope', {}), ErrorCode.UnknownTool);
    assertSentenceInContent(await h.call('Throws', { path: 7 }), ErrorCode.InvalidArguments);
  });

  it('for a tool that throws, coded or not', async () => {
    const thrown = await h.call('Throws', {});
    assertSentenceInContent(thrown, ErrorCode.ToolFailed);
    assert.equal(thrown.errorMessage, 'disk on fire');
    assertSentenceInContent(await h.call('Missing', {}), ErrorCode.NotFound);
  });

  it('for a denial and a cancellation', async () => {
    ws.host.holdPrompts();
    const denied = h.invoke('Guarded', {});
    (await ws.host.nextPrompt()).answer('deny');
    assertSentenceInContent(await h.response(denied), ErrorCode.PermissionDenied);

    const waiting = h.invoke('Wait', {});
    await until(() => h.dispatcher.inFlight === 1);
    h.dispatcher.handleCancel({ type: 'clientToolCancel', requestId: waiting });
    assertSentenceInContent(await h.response(waiting), ErrorCode.Cancelled);
  });

  it('passes the request\'s description to the prompt, marked as the backend\'s words', async () => {
    ws.host.holdPrompts();
    h.dispatcher.handleInvoke({ type: 'clientToolInvokeRequest', requestId: 'd1', toolName: 'Guarded', callId: 'c-d1', arguments: {}, description: 'Tidy up the build folder' });
    const held = await ws.host.nextPrompt();
    assert.match(held.prompt.detail ?? '', /The agent backend describes this call as \(its words, not checked\): “Tidy up the build folder”$/);
    held.answer('deny');
    await h.response('d1');
  });
});
