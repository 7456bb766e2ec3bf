import { strict as assert } from 'node:assert';
import { ErrorCode } from '../../../../src/protocol';
import { delay } from '../../../support/backend-client';
import type { Harness } from '../../../support/backend-harness';
import { harness } from '../../../support/backend-harness';

describe('backend.invokeClientTool', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await harness();
  });
  afterEach(() => h.close());

  it('runs a client tool of the session outside a run and resolves with the client\'s answer', async () => {
    h.client.autoAnswer((req) => ({ success: true, content: [{ type: 'json', value: { opened: req.arguments.path, line: req.arguments.line } }] }));
    const result = await h.backend.invokeClientTool(h.sessionId, 'OpenFile', { path: 'notes.md', line: '3' });
    assert.equal(result.outcome, 'succeeded');
    assert.deepEqual(result.content, [{ type: 'json', value: { opened: 'notes.md', line: 3 } }]);
    const req = h.client.all('clientToolInvokeRequest')[0];
    assert.equal(req.toolName, 'OpenFile');
    assert.equal(req.timeoutMs, 30_000);
    assert.equal(h.client.all('runStarted').length + h.client.all('toolCallStarted').length, 0, 'no run events');
  });

  it('with "any" uses the connected session; a collapsed group does not matter', async () => {
    h.client.autoAnswer(() => ({ success: true, content: [{ type: 'text', text: 'nothing selected' }] }));
    const result = await h.backend.invokeClientTool('any', 'GetSelection');
    assert.equal(result.outcome, 'succeeded');
    assert.deepEqual(result.content, [{ type: 'text', text: 'nothing selected' }]);
  });

  it('refuses an unknown tool and invalid arguments without sending a request', async () => {
    const unknown = await h.backend.invokeClientTool(h.sessionId, 'FormatDisk', {});
    assert.equal(unknown.outcome, 'failed');
    assert.equal(unknown.errorCode, ErrorCode.UnknownTool);
    const invalid = await h.backend.invokeClientTool(h.sessionId, 'OpenFile', { line: 2 });
    assert.equal(invalid.errorCode, ErrorCode.InvalidArguments);
    assert.match(invalid.errorMessage ?? '', /"path" is required/);
    await delay(30);
    assert.equal(h.client.all('clientToolInvokeRequest').length, 0);
  });

  it('ends with TIMEOUT after its own timeoutMs and cancels the call on the client', async () => {
    const started = Date.now();
    const result = await h.backend.invokeClientTool(h.sessionId, 'GetSelection', {}, { timeoutMs: 100 });
    assert.equal(result.outcome, 'timedOut');
    assert.equal(result.errorCode, ErrorCode.Timeout);
    assert.ok(Date.now() - started >= 90);
    const req = h.client.all('clientToolInvokeRequest')[0];
    assert.equal(req.timeoutMs, 100);
    const cancel = await h.client.next('clientToolCancel');
    assert.equal(cancel.requestId, req.requestId);
  });

  it('reports progress and ends as cancelled when its signal aborts', async () => {
    const controller = new AbortController();
    const progress: string[] = [];
    h.client.autoAnswer((req, client) => {
      client.send({ type: 'clientToolProgress', requestId: req.requestId, status: 'running' });
      return undefined;
    });
    const pending = h.backend.invokeClientTool(h.sessionId, 'GetSelection', {}, { signal: controller.signal, onProgress: (status) => progress.push(status) });
    await h.client.next('clientToolInvokeRequest');
    await delay(30);
    controller.abort();
    const result = await pending;
    assert.equal(result.outcome, 'cancelled');
    assert.deepEqual(progress, ['running']);
    await h.client.next('clientToolCancel');
  });

  it('says SESSION_UNKNOWN for an unknown session and DISCONNECTED for "any" with no client', async () => {
    const unknown = await h.backend.invokeClientTool('no-such-session', 'GetSelection');
    assert.equal(unknown.errorCode, ErrorCode.SessionUnknown);
    await h.client.drop();
    await delay(30);
    const none = await h.backend.invokeClientTool('any', 'GetSelection');
    assert.equal(none.errorCode, ErrorCode.Disconnected);
    assert.throws(() => h.backend.invokeClientTool(h.sessionId, 'GetSelection', {}, { timeoutMs: 0 }), RangeError);
  });
});
