import * as assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { ErrorCode, type ClientToolInvokeResponse, type ProgressStatus } from '../../../src/protocol';
import { silentLogger } from '../../../src/base/logger';
import type { CallRecord } from '../../../src/core/callRecord';
import { CallerLifetime } from '../../../src/core/consent/callerLifetime';
import { Consent } from '../../../src/core/consent/consent';
import { Dispatcher } from '../../../src/core/dispatcher';
import { LocalCaller } from '../../../src/core/localCaller';
import { ToolRegistry } from '../../../src/core/registry';
import { defineTool, jsonResult, textResult, type ToolContext } from '../../../src/core/tool';
import { createTempWorkspace, type TempWorkspace } from '../../support/fake-host';

const schema = { type: 'object', properties: { text: { type: 'string' } }, additionalProperties: false };
const base = { group: 'T', description: 'test', parameters: schema, declineStrategy: 'reject' as const };

describe('LocalCaller: the editor\'s tools called from inside the extension through a real dispatcher', () => {
  let ws: TempWorkspace;
  let registry: ToolRegistry;
  let consent: Consent;
  let caller: LocalCaller;
  let records: CallRecord[];
  /** Releases the Wait calls, in order. */
  let releases: (() => void)[];
  let runs: string[];

  beforeEach(async () => {
    ws = await createTempWorkspace();
    releases = [];
    runs = [];
    records = [];
    registry = new ToolRegistry();
    registry.register({ name: 'T', description: 'test tools' }, [
      defineTool({ ...base, name: 'Echo', requiresPermission: false, run: async (args: { text?: string }) => (runs.push(`Echo ${args.text}`), jsonResult({ echoed: args.text ?? null })) }),
      defineTool({ ...base, name: 'Ask', requiresPermission: true, run: async () => (runs.push('Ask'), textResult('asked and ran')) }),
      defineTool({
        ...base,
        name: 'Wait',
        requiresPermission: false,
        run: (args: { text?: string }, ctx: ToolContext) => new Promise((resolve, reject) => {
          runs.push(`Wait ${args.text}`);
          releases.push(() => resolve(textResult(`released ${args.text}`)));
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason));
        }),
      }),
    ]);
    consent = new Consent({ presenter: ws.host, logger: silentLogger, backgroundCalls: 'allow' });
    caller = new LocalCaller((options) => new Dispatcher({ registry, consent, host: ws.host, logger: silentLogger, ...options }), 'test');
    caller.onCallRecord((r) => records.push(r));
  });

  afterEach(async () => {
    caller.dispose();
    consent.dispose();
    registry.dispose();
    await ws.dispose();
  });

  const user = { kind: 'agent' as const, label: 'Some Agent', userRun: true };
  const until = async (condition: () => boolean, what: string): Promise<void> => {
    const start = Date.now();
    while (!condition()) {
      if (Date.now() - start > 3000) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  const ok = (response: ClientToolInvokeResponse): string => {
    assert.equal(response.success, true, JSON.stringify(response));
    return JSON.stringify(response);
  };

  it('answers a call with the tool\'s result, under an id of its own with the prefix, recorded with the caller and thread', async () => {
    const response = await caller.call('Echo', { text: 'hi' }, { caller: user, threadId: 'thread-1' });
    assert.match(ok(response), /echoed.*hi/);
    assert.match(response.requestId, /^test-[0-9a-f-]{36}$/);
    const last = records.filter((r) => r.requestId === response.requestId).at(-1);
    assert.equal(last?.status, 'succeeded');
    assert.equal(last?.caller, 'Some Agent');
    assert.equal(last?.threadId, 'thread-1');
    assert.equal(last?.background, false);
    assert.equal(caller.inFlight, 0);
  });

  it('passes the caller on: a call outside the user\'s run is a background call', async () => {
    const response = await caller.call('Echo', { text: 'bg' }, { caller: { kind: 'mcp', label: 'MCP: client', userRun: false } });
    ok(response);
    const last = records.filter((r) => r.requestId === response.requestId).at(-1);
    assert.equal(last?.background, true);
    assert.equal(last?.threadId, undefined);
  });

  it('settles each of several calls in flight with its own answer, whatever order they end in', async () => {
    const first = caller.call('Wait', { text: 'one' }, { caller: user });
    const second = caller.call('Wait', { text: 'two' }, { caller: user });
    await until(() => releases.length === 2, 'both calls to run');
    assert.equal(caller.inFlight, 2);
    releases[1]?.();
    releases[0]?.();
    assert.match(ok(await first), /released one/);
    assert.match(ok(await second), /released two/);
    assert.notEqual((await first).requestId, (await second).requestId);
  });

  it('reports the dispatcher\'s progress to the call\'s onProgress: awaiting permission, then running', async () => {
    ws.host.holdPrompts();
    const seen: [ProgressStatus, string | undefined][] = [];
    const done = caller.call('Ask', {}, { caller: user, onProgress: (status, details) => seen.push([status, details]) });
    const held = await ws.host.nextPrompt();
    assert.deepEqual(seen.map(([s]) => s), ['awaiting-permission']);
    held.answer('allow');
    assert.match(ok(await done), /asked and ran/);
    assert.deepEqual(seen.map(([s]) => s), ['awaiting-permission', 'running']);
    assert.deepEqual(runs, ['Ask']);
  });

  it('cancels a call when its signal aborts: the open prompt closes, the tool never runs, CANCELLED with the reason', async () => {
    ws.host.holdPrompts();
    const controller = new AbortController();
    const done = caller.call('Ask', {}, { caller: user, signal: controller.signal, cancelReason: 'the agent withdrew it' });
    const held = await ws.host.nextPrompt();
    controller.abort();
    assert.equal(await held.closed, 'aborted');
    const response = await done;
        assert.equal(response.errorCode, ErrorCode.Cancelled);
    assert.match(JSON.stringify(response), /the agent withdrew it/);
    assert.deepEqual(runs, []);
  });

  it('cancels at once a call whose signal aborted before it was made', async () => {
    const controller = new AbortController();
    controller.abort();
    const response = await caller.call('Wait', { text: 'late' }, { caller: user, signal: controller.signal });
    assert.equal(response.errorCode, ErrorCode.Cancelled);
    assert.deepEqual(runs, []);
  });

  it('cancels a call whose caller\'s lifetime ends', async () => {
    const lifetime = new CallerLifetime();
    const done = caller.call('Wait', { text: 'x' }, { caller: { ...user, lifetime } });
    await until(() => releases.length === 1, 'the call to run');
    lifetime.end(ErrorCode.Cancelled, 'the client is gone');
    const response = await done;
    assert.equal(response.errorCode, ErrorCode.Cancelled);
    assert.match(JSON.stringify(response), /the client is gone/);
  });

  it('lets go of the signal once the call is answered (no listener left on a long-lived signal)', async () => {
    const controller = new AbortController();
    const pending = caller.call('Wait', { text: 'held' }, { caller: user, signal: controller.signal });
    await until(() => releases.length === 1, 'the call to run');
    assert.equal(getEventListeners(controller.signal, 'abort').length, 1);
    releases[0]?.();
    ok(await pending);
    ok(await caller.call('Echo', { text: 'again' }, { caller: user, signal: controller.signal }));
    assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
  });

  it('dispose ends every running call with CANCELLED', async () => {
    const done = caller.call('Wait', { text: 'y' }, { caller: user });
    await until(() => releases.length === 1, 'the call to run');
    caller.dispose();
    const response = await done;
    assert.equal(response.errorCode, ErrorCode.Cancelled);
  });
});
