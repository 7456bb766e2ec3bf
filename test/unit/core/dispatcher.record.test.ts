import * as assert from 'node:assert/strict';
import type { BackgroundCallPolicy, CallRecord } from '../../../src/core/callRecord';
import { defineTool, jsonResult, textResult, type ClientTool, type ToolContext } from '../../../src/core/tool';
import { ErrorCode, type ClientToolInvokeRequest } from '../../../src/protocol';
import { DispatchHarness, until } from '../../support/dispatch-harness';
import { createTempWorkspace, type TempWorkspace } from '../../support/fake-host';

function makeTools() {
  const runs: Record<string, number> = {};
  const count = (name: string) => (runs[name] = (runs[name] ?? 0) + 1);
  const schema = { type: 'object', properties: { path: { type: 'string' } }, additionalProperties: false };
  const base = { group: 'T', description: 'test', parameters: schema, declineStrategy: 'reject' as const };
  const tools: ClientTool[] = [
    defineTool({ ...base, name: 'Read', requiresPermission: false, run: async (args: { path?: string }) => (count('Read'), jsonResult({ read: args.path ?? null })) }),
    defineTool({ ...base, name: 'Delete', requiresPermission: true, run: async () => (count('Delete'), textResult('deleted')) }),
    defineTool({
      ...base,
      name: 'Protected',
      requiresPermission: false,
      prepare: async (args: { path?: string }) => ({ prompt: `Read the protected file ${args.path ?? ''}?`, forcePrompt: true }),
      run: async () => (count('Protected'), textResult('secret')),
    }),
    defineTool({ ...base, name: 'Broken', requiresPermission: false, run: async () => Promise.reject(new Error('disk on fire')) }),
    defineTool({
      ...base,
      name: 'Slow',
      requiresPermission: false,
      run: (_args: unknown, ctx: ToolContext) => new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason))),
    }),
  ];
  return { tools, runs };
}

describe('dispatcher: the call record', () => {
  let ws: TempWorkspace;
  let t: ReturnType<typeof makeTools>;
  let h: DispatchHarness;
  let records: CallRecord[];
  /** What `background` answers for each request (undefined: the user's run). */
  let policy: BackgroundCallPolicy | undefined;

  beforeEach(async () => {
    ws = await createTempWorkspace();
    t = makeTools();
    policy = undefined;
    h = new DispatchHarness({
      host: ws.host,
      tools: t.tools,
      group: { name: 'T', description: 'test' },
      gate: { closeGraceMs: 10 },
      background: (_request: ClientToolInvokeRequest) => policy,
    });
    records = [];
    h.dispatcher.onCallRecord((r) => records.push(r));
  });
  afterEach(async () => {
    h.dispose();
    await ws.dispose();
  });

  const of = (requestId: string) => records.filter((r) => r.requestId === requestId);
  const statuses = (requestId: string) => of(requestId).map((r) => r.status);
  const last = (requestId: string) => of(requestId)[of(requestId).length - 1];

  it('records a read-only call from pending to succeeded, with tool, group, validated arguments, target, duration and the result', async () => {
    const id = h.invoke('Read', { path: 'src/a.ts' });
    await h.response(id);
    assert.equal(statuses(id)[0], 'pending');
    const end = last(id);
    assert.equal(end.status, 'succeeded');
    assert.equal(end.toolName, 'Read');
    assert.equal(end.groupName, 'T');
    assert.equal(end.callId, `c-${id}`);
    assert.deepEqual(end.arguments, { path: 'src/a.ts' });
    assert.equal(end.target, 'src/a.ts');
    assert.equal(end.background, false);
    assert.equal(typeof end.durationMs, 'number');
    assert.deepEqual(end.content, [{ type: 'json', value: { read: 'src/a.ts' } }]);
    assert.equal(end.permission, undefined, 'no prompt, no decision');
  });

  it('records awaiting-permission, running and the decision (via prompt) for a call that asks', async () => {
    ws.host.holdPrompts();
    const id = h.invoke('Delete', { path: 'old.txt' });
    const prompt = await ws.host.nextPrompt();
    assert.deepEqual(statuses(id), ['pending', 'awaiting-permission']);
    prompt.answer('allow');
    await h.response(id);
    assert.deepEqual(statuses(id), ['pending', 'awaiting-permission', 'running', 'succeeded']);
    assert.deepEqual(last(id).permission, { decision: 'allowed', via: 'prompt' });
  });

  it('records a denial with its via, and a failure with its code and message', async () => {
    ws.host.answerPrompts('deny');
    const denied = h.invoke('Delete', {});
    await h.response(denied);
    assert.equal(last(denied).status, 'denied');
    assert.deepEqual(last(denied).permission, { decision: 'denied', via: 'user' });
    assert.equal(last(denied).errorCode, ErrorCode.PermissionDenied);

    const broken = h.invoke('Broken', {});
    await h.response(broken);
    assert.deepEqual([last(broken).status, last(broken).errorCode, last(broken).errorMessage], ['failed', ErrorCode.ToolFailed, 'disk on fire']);
  });

  it('records a remembered grant as allowed via remembered, with the grant as its button said it', async () => {
    ws.host.answerPrompts('allowSession');
    await h.call('Delete', {});
    const id = h.invoke('Delete', {});
    await h.response(id);
    assert.deepEqual(last(id).permission, { decision: 'allowed', via: 'remembered', grantLabel: 'Allow every Delete call until this window closes' });
    assert.equal(ws.host.prompts.length, 1);
  });

  it('records a cancelled call as cancelled', async () => {
    const id = h.invoke('Slow', {});
    await until(() => statuses(id).includes('running'));
    h.dispatcher.handleCancel({ type: 'clientToolCancel', requestId: id });
    await h.response(id);
    assert.equal(last(id).status, 'cancelled');
    assert.equal(last(id).errorCode, ErrorCode.Cancelled);
  });

  it('records a request refused before anything runs once, as failed and refused, with the tool, its arguments as sent and the reason', async () => {
    await h.call('Nope', { x: 1 }, 'r-unknown');
    await h.call('Read', { path: 42 }, 'r-invalid');
    assert.deepEqual(records.map((r) => [r.requestId, r.toolName, r.groupName, r.status, r.refused, r.errorCode, r.durationMs]), [
      ['r-unknown', 'Nope', '', 'failed', true, ErrorCode.UnknownTool, 0],
      ['r-invalid', 'Read', 'T', 'failed', true, ErrorCode.InvalidArguments, 0],
    ]);
    assert.deepEqual(records[1].arguments, { path: 42 });
    assert.match(records[1].errorMessage ?? '', /path/);
    assert.equal(t.runs.Read, undefined, 'nothing ran');
  });

  it('records a call refused by the in-flight cap, and one it cannot decode; a copy of a request it has adds no record', async () => {
    h.dispose();
    h = new DispatchHarness({ host: ws.host, tools: t.tools, group: { name: 'T', description: 'test' }, limits: { maxInFlight: 1 } });
    records = [];
    h.dispatcher.onCallRecord((r) => records.push(r));
    const slow = h.invoke('Slow', {});
    await h.call('Read', { path: 'a' }, 'r-over');
    h.dispatcher.handleDecodeError({ code: ErrorCode.InvalidMessage, message: 'arguments: expected record', relatedId: 'r-bad', messageType: 'clientToolInvokeRequest', call: { callId: 'call-bad', toolName: 'Read' } });
    h.invoke('Slow', {}, slow);
    const refused = records.filter((r) => r.refused);
    assert.deepEqual(refused.map((r) => [r.requestId, r.callId, r.toolName, r.errorCode]), [
      ['r-over', 'c-r-over', 'Read', ErrorCode.TooManyInFlight],
      ['r-bad', 'call-bad', 'Read', ErrorCode.InvalidMessage],
    ]);
    assert.equal(records.filter((r) => r.requestId === slow).length, 1, 'the duplicate of the running call added no record');
  });

  it('names the target with the tool\'s own prompt line when it prepared one', async () => {
    ws.host.answerPrompts('allow');
    const id = h.invoke('Protected', { path: '.env' });
    await h.response(id);
    assert.equal(last(id).target, 'Read the protected file .env?');
  });

  describe('background calls', () => {
    it('ask: a read-only tool prompts, saying it is a background request, and is recorded as background', async () => {
      policy = 'ask';
      ws.host.answerPrompts('allow');
      const id = h.invoke('Read', { path: 'a.ts' });
      const r = await h.response(id);
      assert.equal(r.success, true);
      assert.equal(t.runs.Read, 1);
      assert.equal(ws.host.prompts.length, 1);
      assert.match(ws.host.prompts[0].message, /^Background request: /);
      assert.match(ws.host.prompts[0].detail ?? '', /no chat run you started/);
      assert.equal(ws.host.prompts[0].offerAllowSession, false, 'a background prompt cannot be remembered');
      assert.equal(last(id).background, true);
      assert.deepEqual(last(id).permission, { decision: 'allowed', via: 'prompt' });
    });

    it('ask: a denied background prompt answers PERMISSION_DENIED and runs nothing', async () => {
      policy = 'ask';
      ws.host.answerPrompts('deny');
      const r = await h.call('Read', { path: 'a.ts' });
      assert.equal(r.errorCode, ErrorCode.PermissionDenied);
      assert.equal(t.runs.Read, undefined);
    });

    it('ask: a remembered grant does not answer a background call', async () => {
      ws.host.answerPrompts('allowSession');
      await h.call('Delete', {});
      assert.equal(ws.host.prompts.length, 1);
      policy = 'ask';
      ws.host.answerPrompts('deny');
      const r = await h.call('Delete', {});
      assert.equal(r.errorCode, ErrorCode.PermissionDenied);
      assert.equal(ws.host.prompts.length, 2);
      assert.equal(t.runs.Delete, 1);
    });

    it('deny: refused with PERMISSION_DENIED saying background calls are off, before any prompt, and recorded', async () => {
      policy = 'deny';
      const id = h.invoke('Protected', { path: '.env' });
      const r = await h.response(id);
      assert.equal(r.errorCode, ErrorCode.PermissionDenied);
      assert.match(r.errorMessage ?? '', /background calls are off/);
      assert.equal(ws.host.prompts.length, 0);
      assert.equal(t.runs.Protected, undefined);
      assert.deepEqual([last(id).status, last(id).background], ['denied', true]);
      assert.deepEqual(last(id).permission, { decision: 'denied', via: 'backgroundCalls' });
    });

    it('allow: runs like a call of the user\'s run, no prompt, but still recorded as background', async () => {
      policy = 'allow';
      const id = h.invoke('Read', {});
      assert.equal((await h.response(id)).success, true);
      assert.equal(ws.host.prompts.length, 0);
      assert.equal(last(id).background, true);
    });
  });
});
