import * as assert from 'node:assert/strict';
import { CodedError, ErrorCode } from '../../../src/protocol';
import { defineTool, jsonResult, textResult, type ClientTool, type ToolContext } from '../../../src/core/tool';
import { MAX_DENY_REASON_CHARS } from '../../../src/core/consent/presenter';
import { ANSWER_IN_OWN_TURN_BYTES } from '../../../src/core/dispatcher';
import { DispatchHarness, delay, until } from '../../support/dispatch-harness';
import { createTempWorkspace, type TempWorkspace } from '../../support/fake-host';

/** Test tools; each records its runs. */
function makeTools() {
  const runs: Record<string, number> = {};
  const signals: AbortSignal[] = [];
  const gates: (() => void)[] = [];
  const count = (name: string) => (runs[name] = (runs[name] ?? 0) + 1);
  const schema = { type: 'object', properties: { path: { type: 'string' } }, additionalProperties: false };
  const base = { group: 'T', description: 'test', parameters: schema, requiresPermission: false, declineStrategy: 'reject' as const };
  const tools: ClientTool[] = [
    defineTool({ ...base, name: 'Echo', run: async (args: { path?: string }) => (count('Echo'), jsonResult({ echoed: args.path ?? null })) }),
    defineTool({
      ...base,
      name: 'Wait',
      // Runs until the test releases it (or its signal aborts, which it honours).
      run: (_args: unknown, ctx: ToolContext) => {
        count('Wait');
        signals.push(ctx.signal);
        return new Promise((resolve, reject) => {
          gates.push(() => resolve(textResult('released')));
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason));
        });
      },
    }),
    defineTool({
      ...base,
      name: 'Stubborn',
      // Ignores its signal and finishes late.
      run: async (_args: unknown, ctx: ToolContext) => {
        count('Stubborn');
        signals.push(ctx.signal);
        await delay(40);
        return textResult('late');
      },
    }),
    defineTool({ ...base, name: 'Throws', run: async () => (count('Throws'), Promise.reject(new Error('disk on fire'))) }),
    defineTool({ ...base, name: 'ThrowsCoded', run: async () => Promise.reject(new CodedError(ErrorCode.NotFound, 'gone')) }),
    defineTool({ ...base, name: 'Huge', run: async () => textResult('x'.repeat(5000)) }),
    defineTool({ ...base, name: 'Malformed', run: async () => ({ content: [{ type: 'nonsense' }] }) as never }),
    defineTool({ ...base, name: 'Hidden', hidden: true, run: async () => textResult('hidden ran') }),
    defineTool({ ...base, name: 'Revealer', run: async () => ({ content: [{ type: 'text', text: 'ok' }], augmentation: { showTools: ['Hidden'] } }) }),
    defineTool({ ...base, name: 'Guarded', requiresPermission: true, run: async () => (count('Guarded'), textResult('guarded ran')) }),
    defineTool({
      ...base,
      name: 'Permissive',
      requiresPermission: true,
      parameters: { type: 'object', additionalProperties: true },
      run: async () => (count('Permissive'), textResult('permissive ran')),
    }),
    defineTool({ ...base, name: 'Skippable', requiresPermission: true, declineStrategy: 'skip', run: async () => (count('Skippable'), textResult('ran')) }),
    defineTool({
      ...base,
      name: 'GuardedWait',
      requiresPermission: true,
      run: (_args: unknown, ctx: ToolContext) => {
        count('GuardedWait');
        return new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)));
      },
    }),
    defineTool({ ...base, name: 'Reporter', run: async (_a: unknown, ctx: ToolContext) => (ctx.progress('half way'), textResult('done')) }),
  ];
  return { tools, runs, signals, release: () => gates.splice(0).forEach((g) => g()) };
}

describe('dispatcher', () => {
  let ws: TempWorkspace;
  let t: ReturnType<typeof makeTools>;
  let h: DispatchHarness;

  beforeEach(async () => {
    ws = await createTempWorkspace();
    t = makeTools();
    h = new DispatchHarness({ host: ws.host, tools: t.tools, group: { name: 'T', description: 'test' }, limits: { maxInFlight: 3, progressIntervalMs: 20, maxResultBytes: 1000 }, gate: { closeGraceMs: 10 } });
  });
  afterEach(async () => {
    h.dispose();
    await ws.dispose();
  });

  it('runs a tool and answers success with its content', async () => {
    const r = await h.call('Echo', { path: 'a.ts' });
    assert.equal(r.success, true);
    assert.deepEqual(r.content, [{ type: 'json', value: { echoed: 'a.ts' } }]);
  });

  it('answers UNKNOWN_TOOL for unknown and look-alike names, and never runs Echo for them', async () => {
    for (const name of ['echo', 'ECHO', 'Εcho' /* Greek Ε */, 'Echo_']) {
      const r = await h.call(name, {});
      assert.equal(r.success, false);
      assert.equal(r.errorCode, ErrorCode.UnknownTool, name);
    }
    assert.equal(t.runs.Echo, undefined);
  });

  it('answers TOOL_HIDDEN, TOOL_DISABLED and WORKSPACE_UNTRUSTED without running the tool', async () => {
    assert.equal((await h.call('Hidden', {})).errorCode, ErrorCode.ToolHidden);
    h.registry.setDisabled('Echo', { code: ErrorCode.ToolDisabled, message: 'off' });
    assert.equal((await h.call('Echo', {})).errorCode, ErrorCode.ToolDisabled);
    h.registry.setDisabled('Echo', undefined);
    h.registry.setWorkspaceTrusted(false);
    assert.equal((await h.call('Echo', {})).errorCode, ErrorCode.WorkspaceUntrusted);
    assert.equal(t.runs.Echo, undefined);
  });

  it('an augmentation that shows a hidden tool makes it callable', async () => {
    assert.equal((await h.call('Revealer', {})).augmentation?.showTools?.[0], 'Hidden');
    assert.equal((await h.call('Hidden', {})).success, true);
  });

  it('answers INVALID_ARGUMENTS naming the field, without coercion', async () => {
    const r = await h.call('Echo', { path: 42 });
    assert.equal(r.errorCode, ErrorCode.InvalidArguments);
    assert.equal(r.errorMessage, 'path: must be string');
    const extra = await h.call('Echo', { path: 'a', approved: true });
    assert.equal(extra.errorCode, ErrorCode.InvalidArguments);
    assert.equal(extra.errorMessage, 'approved: is not an accepted argument');
    assert.equal(t.runs.Echo, undefined);
  });

  it('answers a throwing tool with TOOL_FAILED and its message; a CodedError keeps its code', async () => {
    const r = await h.call('Throws', {});
    assert.deepEqual([r.success, r.errorCode, r.errorMessage], [false, ErrorCode.ToolFailed, 'disk on fire']);
    const c = await h.call('ThrowsCoded', {});
    assert.deepEqual([c.errorCode, c.errorMessage], [ErrorCode.NotFound, 'gone']);
    const after = await h.call('Echo', { path: 'still fine' });
    assert.equal(after.success, true, 'a failing tool does not break the dispatcher');
  });

  it('answers RESULT_TOO_LARGE over the result cap and TOOL_FAILED for a malformed result', async () => {
    assert.equal((await h.call('Huge', {})).errorCode, ErrorCode.ResultTooLarge);
    assert.equal((await h.call('Malformed', {})).errorCode, ErrorCode.ToolFailed);
  });

  it('answers a result over 1 MiB in a turn after the one that checked it, a small one in the same turn', async () => {
    // Each tool queues other work for the next turn as it returns; the test reads whether it ran when the answer was sent.
    const otherWork = { ran: false };
    const returning = (text: string) => async () => {
      otherWork.ran = false;
      setImmediate(() => (otherWork.ran = true));
      return textResult(text);
    };
    const base = { group: 'L', description: 'test', parameters: { type: 'object' }, requiresPermission: false, declineStrategy: 'reject' as const };
    const large = new DispatchHarness({
      host: ws.host,
      tools: [defineTool({ ...base, name: 'Large', run: returning('x'.repeat(ANSWER_IN_OWN_TURN_BYTES + 1)) }), defineTool({ ...base, name: 'Small', run: returning('small') })],
      limits: { maxResultBytes: 4 * ANSWER_IN_OWN_TURN_BYTES },
    });
    try {
      const whenAnswered = (name: string) => large.call(name, {}).then((r) => ({ success: r.success, otherWorkRan: otherWork.ran }));
      assert.deepEqual(await whenAnswered('Large'), { success: true, otherWorkRan: true });
      assert.deepEqual(await whenAnswered('Small'), { success: true, otherWorkRan: false });
    } finally {
      large.dispose();
    }
  });

  it('refuses calls beyond the in-flight cap at once with TOO_MANY_IN_FLIGHT, and accepts again once one ends', async () => {
    const ids = [h.invoke('Wait', {}), h.invoke('Wait', {}), h.invoke('Wait', {})];
    const excess = await h.call('Echo', {});
    assert.equal(excess.errorCode, ErrorCode.TooManyInFlight);
    assert.equal(h.dispatcher.inFlight, 3);
    t.release();
    for (const id of ids) assert.equal((await h.response(id)).success, true);
    assert.equal((await h.call('Echo', {})).success, true);
  });

  it('answers DUPLICATE_REQUEST for an id that is running, and runs it once', async () => {
    const id = h.invoke('Wait', {});
    await until(() => t.runs.Wait === 1);
    h.invoke('Wait', {}, id);
    await until(() => h.responses(id).length === 1);
    assert.equal(h.responses(id)[0].errorCode, ErrorCode.DuplicateRequest);
    t.release();
    await until(() => h.responses(id).length === 2);
    assert.equal(h.responses(id)[1].success, true);
    assert.equal(t.runs.Wait, 1);
  });

  it('re-sends the stored answer for an answered id and does not run the tool again', async () => {
    const first = await h.call('Echo', { path: 'one' }, 'same');
    h.invoke('Echo', { path: 'two' }, 'same');
    await until(() => h.responses('same').length === 2);
    assert.deepEqual(h.responses('same')[1], first);
    assert.equal(t.runs.Echo, 1);
  });

  it('refuses an answered id reused for another tool with DUPLICATE_REQUEST', async () => {
    await h.call('Echo', {}, 'reused');
    h.invoke('Guarded', {}, 'reused');
    await until(() => h.responses('reused').length === 2);
    assert.equal(h.responses('reused')[1].errorCode, ErrorCode.DuplicateRequest);
    assert.equal(t.runs.Guarded, undefined);
  });

  it('bounds the replay cache by count: an evicted answer is not replayed, but the tool still does not run again', async () => {
    const small = new DispatchHarness({ host: ws.host, tools: t.tools, group: { name: 'T', description: 'test' }, limits: { replayMaxAnswers: 1 } });
    await small.call('Echo', { path: 'a' }, 'old');
    await small.call('Echo', { path: 'b' }, 'new');
    small.invoke('Echo', { path: 'a' }, 'old');
    await until(() => small.responses('old').length === 2);
    assert.equal(small.responses('old')[1].errorCode, ErrorCode.DuplicateRequest);
    assert.equal(t.runs.Echo, 2);
    small.dispose();
  });

  it('bounds the replay cache by time (replayWindowMs)', async () => {
    const short = new DispatchHarness({ host: ws.host, tools: t.tools, group: { name: 'T', description: 'test' }, limits: { replayWindowMs: 20 } });
    await short.call('Echo', {}, 'x');
    await delay(40);
    short.invoke('Echo', {}, 'x');
    await until(() => short.responses('x').length === 2);
    assert.equal(t.runs.Echo, 2, 'after the window the id is forgotten');
    short.dispose();
  });

  describe('permission', () => {
    it('prompts for a tool whose local definition requires it, then runs it', async () => {
      ws.host.answerPrompts('allow');
      const r = await h.call('Guarded', {});
      assert.equal(r.success, true);
      assert.equal(ws.host.prompts.length, 1);
      assert.equal(ws.host.prompts[0].toolName, 'Guarded');
      assert.equal(t.runs.Guarded, 1);
    });

    it('nothing in the request skips the prompt: approved/skipPermission/confirmed arguments are ignored', async () => {
      ws.host.answerPrompts('deny');
      const r = await h.call('Permissive', { approved: true, skipPermission: true, confirmed: 'yes', requiresPermission: false });
      assert.equal(r.errorCode, ErrorCode.PermissionDenied);
      assert.equal(ws.host.prompts.length, 1);
      assert.equal(t.runs.Permissive, undefined);
    });

    it('decline strategy reject: success:false PERMISSION_DENIED, tool not run', async () => {
      ws.host.answerPrompts('deny');
      const r = await h.call('Guarded', {});
      assert.deepEqual([r.success, r.errorCode], [false, ErrorCode.PermissionDenied]);
      assert.equal(t.runs.Guarded, undefined);
    });

    it('a Deny with a reason (the chat prompt) tells the model the reason in the result; without one, the old sentence', async () => {
      ws.host.answerPrompts({ answer: 'deny', reason: '  keep it,\n  I still need it ' });
      const r = await h.call('Guarded', {});
      assert.deepEqual([r.success, r.errorCode], [false, ErrorCode.PermissionDenied]);
      assert.equal(r.errorMessage, 'the user declined to run Guarded; the user\'s reason: "keep it, I still need it"');
      assert.equal(t.runs.Guarded, undefined);
      ws.host.answerPrompts({ answer: 'deny', reason: '   ' });
      assert.equal((await h.call('Guarded', {})).errorMessage, 'the user declined to run Guarded');
      ws.host.answerPrompts({ answer: 'deny', reason: 'x'.repeat(2000) });
      const long = (await h.call('Guarded', {})).errorMessage ?? '';
      assert.ok(long.length < 600 && long.endsWith('…"'), `the reason is capped at ${MAX_DENY_REASON_CHARS} characters: ${long.length}`);
      ws.host.answerPrompts({ answer: 'deny', reason: 'not now' });
      const skipped = await h.call('Skippable', {});
      assert.match((skipped.content[0] as { text: string }).text, /skipped this call to Skippable; nothing was done; the user's reason: "not now"\. Continue without it\./);
    });

    it('a reason given with Allow is not passed on; the tool runs', async () => {
      ws.host.answerPrompts({ answer: 'allow', reason: 'ignored' });
      const r = await h.call('Guarded', {});
      assert.equal(r.success, true);
      assert.equal(t.runs.Guarded, 1);
    });

    it('dismissing the prompt counts as deny', async () => {
      ws.host.answerPrompts(undefined);
      assert.equal((await h.call('Guarded', {})).errorCode, ErrorCode.PermissionDenied);
    });

    it('decline strategy skip: success:true with a text saying it was skipped and errorCode SKIPPED', async () => {
      ws.host.answerPrompts('deny');
      const r = await h.call('Skippable', {});
      assert.equal(r.success, true);
      assert.equal(r.errorCode, ErrorCode.Skipped);
      assert.equal(r.content[0].type, 'text');
      assert.match((r.content[0] as { text: string }).text, /skipped/);
      assert.equal(t.runs.Skippable, undefined);
    });

    it('reports awaiting-permission while the prompt is open, then running', async () => {
      ws.host.holdPrompts();
      const id = h.invoke('Guarded', {});
      const prompt = await ws.host.nextPrompt();
      assert.deepEqual(h.progress(id).map((p) => p.status), ['awaiting-permission']);
      await delay(50);
      assert.ok(h.progress(id).length >= 2, 'waiting keeps reporting');
      assert.ok(h.progress(id).every((p) => p.status === 'awaiting-permission'));
      prompt.answer('allow');
      assert.equal((await h.response(id)).success, true);
      assert.ok(h.progress(id).some((p) => p.status === 'running'));
    });

    it('cancellation closes an open prompt and answers CANCELLED; the tool never runs', async () => {
      ws.host.holdPrompts();
      const id = h.invoke('Guarded', {});
      const prompt = await ws.host.nextPrompt();
      h.dispatcher.handleCancel({ type: 'clientToolCancel', requestId: id, reason: 'user stopped the run' });
      const r = await h.response(id);
      assert.equal(r.errorCode, ErrorCode.Cancelled);
      assert.equal(await prompt.closed, 'aborted');
      assert.equal(t.runs.Guarded, undefined);
      assert.equal(h.responses(id).length, 1);
    });
  });

  it('cancellation aborts a running tool\'s signal and answers CANCELLED once', async () => {
    const id = h.invoke('Wait', {});
    await until(() => t.signals.length === 1);
    h.dispatcher.handleCancel({ type: 'clientToolCancel', requestId: id });
    const r = await h.response(id);
    assert.equal(r.errorCode, ErrorCode.Cancelled);
    assert.equal(t.signals[0].aborted, true);
    await delay(10);
    assert.equal(h.responses(id).length, 1);
  });

  it('a tool that ignores cancellation is answered at once, and its late result is dropped', async () => {
    const id = h.invoke('Stubborn', {});
    await until(() => t.signals.length === 1);
    h.dispatcher.handleCancel({ type: 'clientToolCancel', requestId: id });
    assert.equal((await h.response(id)).errorCode, ErrorCode.Cancelled);
    assert.equal(h.dispatcher.inFlight, 1, 'the slot stays taken until the tool settles');
    await until(() => h.dispatcher.inFlight === 0);
    assert.equal(h.responses(id).length, 1, 'exactly one answer');
  });

  it('a tool running past maxRunMs is aborted and answered TIMEOUT', async () => {
    const quick = new DispatchHarness({ host: ws.host, tools: t.tools, group: { name: 'T', description: 'test' }, limits: { maxRunMs: 30 } });
    const r = await quick.call('Wait', {});
    assert.equal(r.errorCode, ErrorCode.Timeout);
    quick.dispose();
  });

  it('sends no running for a tool that answers within its first turn: just the answer', async () => {
    const id = h.invoke('Echo', { path: 'x' });
    await h.response(id);
    await delay(10);
    assert.deepEqual(h.progress(id), []);
  });

  it('sends running, then periodic progress for a long-running tool, and a tool\'s own progress', async () => {
    const id = h.invoke('Wait', {});
    await delay(70);
    const statuses = h.progress(id).map((p) => p.status);
    assert.equal(statuses[0], 'running');
    assert.ok(statuses.filter((s) => s === 'progress').length >= 2, statuses.join(','));
    t.release();
    await h.response(id);
    const count = h.progress(id).length;
    await delay(50);
    assert.equal(h.progress(id).length, count, 'no progress after the answer');
    const rid = h.invoke('Reporter', {});
    await h.response(rid);
    assert.ok(h.progress(rid).some((p) => p.status === 'progress' && p.details === 'half way'));
  });

  it('keeps answers the socket refused and sends them when the session resumes', async () => {
    h.connected = false;
    const id = h.invoke('Echo', { path: 'x' });
    await until(() => h.dispatcher.unsentCount === 1);
    assert.equal(h.responses(id).length, 0);
    h.connected = true;
    h.dispatcher.onSessionResumed();
    assert.equal(h.responses(id).length, 1);
    assert.equal(h.responses(id)[0].success, true);
    assert.equal(h.dispatcher.unsentCount, 0);
  });

  it('a new session drops unsent answers and the replay cache, and cancels running calls', async () => {
    h.connected = false;
    h.invoke('Echo', {}, 'a');
    const running = h.invoke('Wait', {});
    await until(() => t.signals.length === 1 && h.dispatcher.unsentCount === 1);
    h.connected = true; // the new session's socket is up
    h.dispatcher.onNewSession();
    assert.equal(t.signals[0].aborted, true);
    assert.equal(h.dispatcher.unsentCount, 0);
    assert.equal(h.responses('a').length, 0, 'no stale answer goes to the new session');
    h.invoke('Echo', {}, 'a');
    await until(() => h.responses('a').length === 1);
    assert.equal(t.runs.Echo, 2, 'a new session may reuse ids');
    assert.equal(h.responses(running).length, 0, 'the cancelled call is not answered to the new session');
  });

  it('answers a malformed request that has a readable id with its decode error code', async () => {
    h.dispatcher.handleDecodeError({ code: ErrorCode.InvalidMessage, message: 'arguments: expected record', relatedId: 'bad-1', messageType: 'clientToolInvokeRequest' });
    const r = h.responses('bad-1')[0];
    assert.deepEqual([r.success, r.errorCode, r.errorMessage], [false, ErrorCode.InvalidMessage, 'arguments: expected record']);
    // Not for a running id (a garbled copy must not end the real call), nor for other message types.
    const id = h.invoke('Wait', {});
    h.dispatcher.handleDecodeError({ code: ErrorCode.InvalidMessage, message: 'x', relatedId: id, messageType: 'clientToolInvokeRequest' });
    h.dispatcher.handleDecodeError({ code: ErrorCode.InvalidMessage, message: 'x', relatedId: 'c', messageType: 'clientToolCancel' });
    assert.equal(h.responses(id).length, 0);
    assert.equal(h.responses('c').length, 0);
    t.release();
  });

  it('logs tool, outcome and duration, never the arguments', async () => {
    await h.call('Echo', { path: 'SECRET-ARGUMENT-VALUE' });
    await h.call('Throws', {});
    const entry = h.logger.entries.find((e) => e.fields?.tool === 'Echo' && e.fields?.outcome === 'succeeded');
    assert.ok(entry);
    assert.equal(typeof entry.fields?.durationMs, 'number');
    assert.ok(h.logger.entries.some((e) => e.level === 'error' && e.fields?.tool === 'Throws' && e.fields?.code === ErrorCode.ToolFailed));
    assert.ok(!h.logger.text().includes('SECRET-ARGUMENT-VALUE'));
  });
});
