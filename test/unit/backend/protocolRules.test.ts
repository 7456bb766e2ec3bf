/**
 * Rules of PROTOCOL.md that round 3 pinned, against the reference backend with the real `openai`
 * SDK on the fake endpoint: a call the backend refuses is `executor: "server"` with its code in
 * `toolCallEnded`; `success: false` without a code counts as TOOL_FAILED; registration errors name
 * `group` and `tool`; a call without `threadId` applies its augmentation to the session; and the
 * `retryWithBackoff` steps (counter, delays, resumes) are exactly as the page gives them.
 */
import { strict as assert } from 'node:assert';
import type { BackendOptions } from '../../../src/backend';
import { ErrorCode, type ToolGroupDefinition } from '../../../src/protocol';
import { delay, ideGroup } from '../../support/backend-client';
import type { ChatRequestMessage } from '../../support/fake-openai';
import type { Harness } from '../../support/backend-harness';
import { eventFor, eventually, harness } from '../../support/backend-harness';

describe('backend: protocol rules pinned in round 3', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  describe('refused calls', () => {
    it('a tool of a collapsed group, a hidden tool, a name that is no function and bad arguments: executor server, failed with the code, no request', async () => {
      const files: ToolGroupDefinition = { name: 'Files', description: 'Files.', tools: [{ name: 'Remove', description: 'x', parameters: { type: 'object', properties: {} } }] };
      const ide = ideGroup();
      ide.tools.push({ name: 'Secret', description: 'x', parameters: { type: 'object', properties: {} }, hidden: true });
      h = await harness({}, { toolGroups: [ide, files], preExpanded: ['IDE'] });
      h.fake.enqueue(
        { toolCalls: [{ name: 'Remove', id: 'c1' }, { name: 'Secret', id: 'c2' }, { name: 'NoSuchFunction', id: 'c3' }, { name: 'OpenFile', id: 'c4', arguments: { line: 3 } }] },
        { text: 'none of that worked' },
      );
      await h.client.run('t1', 'try things');
      assert.equal(h.client.all('clientToolInvokeRequest').length, 0);
      const seen = ['c1', 'c2', 'c3', 'c4'].map((id) => {
        const started = h!.client.all('toolCallStarted').find((m) => m.callId === id);
        const ended = h!.client.all('toolCallEnded').find((m) => m.callId === id);
        return [id, started?.executor, ended?.outcome, ended?.errorCode];
      });
      assert.deepEqual(seen, [
        ['c1', 'server', 'failed', ErrorCode.ToolHidden],
        ['c2', 'server', 'failed', ErrorCode.ToolHidden],
        ['c3', 'server', 'failed', ErrorCode.UnknownTool],
        ['c4', 'server', 'failed', ErrorCode.InvalidArguments],
      ]);
      assert.match(h.client.all('toolCallEnded').find((m) => m.callId === 'c1')?.errorMessage ?? '', /collapsed tool group "Files"; call the function "Files" first/);
    });

    it('a call the extension answers with success false and no errorCode counts as TOOL_FAILED; every other outcome carries its code, success none', async () => {
      h = await harness({}, { preExpanded: ['IDE'] });
      h.fake.enqueue({ toolCalls: [{ name: 'GetSelection', id: 'c1' }, { name: 'DeleteFile', id: 'c2', arguments: { path: 'a' } }, { name: 'ReadFile', id: 'c3', arguments: { path: 'b' } }] }, { text: 'ok' });
      h.client.autoAnswer((req) =>
        req.toolName === 'GetSelection' ? { success: false, content: [{ type: 'text', text: 'no editor' }] }
        : req.toolName === 'DeleteFile' ? { success: false, content: [], errorCode: ErrorCode.PermissionDenied, errorMessage: 'denied' }
        : { success: true, content: [{ type: 'text', text: 'b' }] });
      await h.client.run('t1', 'go');
      const ended = (id: string) => h!.client.all('toolCallEnded').find((m) => m.callId === id);
      assert.deepEqual([ended('c1')?.outcome, ended('c1')?.errorCode], ['failed', ErrorCode.ToolFailed]);
      assert.deepEqual([ended('c2')?.outcome, ended('c2')?.errorCode], ['denied', ErrorCode.PermissionDenied]);
      assert.deepEqual([ended('c3')?.outcome, ended('c3')?.errorCode], ['succeeded', undefined]);
      const toolTexts = h.fake.requests[1].body.messages.filter((m: ChatRequestMessage) => m.role === 'tool').map((m: ChatRequestMessage) => String(m.content));
      assert.match(toolTexts[0], /^Error \(TOOL_FAILED\)/);
    });
  });

  describe('registration errors', () => {
    it('name the group and the tool or skill at fault; a repeated name keeps the first comer', async () => {
      const a: ToolGroupDefinition = {
        name: 'Alpha',
        description: 'a',
        tools: [
          { name: 'Good', description: 'x', parameters: { type: 'object' } },
          { name: 'Broken', description: 'x', parameters: { type: 'object', properties: { n: { type: 12 } } } },
        ],
        skills: [{ name: 'Good', description: 'same name as a tool', tools: [] }],
      };
      const b: ToolGroupDefinition = { name: 'Beta', description: 'b', tools: [{ name: 'Good', description: 'taken', parameters: { type: 'object' } }, { name: 'Other', description: 'x', parameters: { type: 'object' } }] };
      h = await harness({}, { toolGroups: [a, b, { ...b, description: 'twice' }] });
      const state = await h.client.next('toolGroupState');
      const errors = h.client.all('error').map((e) => [e.code, e.group, e.tool]);
      assert.deepEqual(errors, [
        [ErrorCode.InvalidSchema, 'Alpha', 'Broken'],
        [ErrorCode.NameTaken, 'Alpha', 'Good'],
        [ErrorCode.NameTaken, 'Beta', 'Good'],
        [ErrorCode.InvalidMessage, 'Beta', undefined],
      ]);
      assert.deepEqual(state.groups.map((g) => [g.name, g.tools.map((t) => t.name), g.skills.map((s) => s.name)]), [['Alpha', ['Good'], []], ['Beta', ['Other'], []]]);
    });
  });

  describe('a call without threadId', () => {
    it('applies its answer\'s augmentation to the session: the session toolGroupState shows it and a new thread starts from it', async () => {
      h = await harness({}, { toolGroups: [ideGroup(), { name: 'Extra', description: 'x', tools: [{ name: 'Ping', description: 'x', parameters: { type: 'object' } }] }] });
      h.client.autoAnswer(() => ({ success: true, content: [], augmentation: { expandGroups: ['Extra'], addContext: [{ name: 'Note', text: 'from a background call' }] } }));
      const since = h.client.all('toolGroupState').length;
      const result = await h.backend.invokeClientTool(h.sessionId, 'GetSelection', {});
      assert.equal(result.outcome, 'succeeded');
      const state = await h.client.next('toolGroupState', (m) => m.threadId === undefined && h!.client.all('toolGroupState').indexOf(m) >= since);
      assert.equal(state.groups.find((g) => g.name === 'Extra')?.expanded, true);
      assert.deepEqual(state.context, [{ name: 'Note', text: 'from a background call' }]);
      h.client.autoAnswer(() => ({ success: true, content: [] }));
      h.fake.enqueue({ text: 'hi' });
      await h.client.run('fresh-thread', 'hello');
      const tools = (h.fake.requests[0].body.tools ?? []).map((t: { function: { name: string } }) => t.function.name);
      assert.ok(tools.includes('Ping'), `a new thread sees the expanded group: ${tools.join(', ')}`);
    });
  });

  describe('retryWithBackoff, exactly', () => {
    /** The backoff steps the invoker reports as progress: [delay seconds, retry number]. */
    const steps = (h: Harness) =>
      h.events.flatMap((e) => (e.type === 'toolCallUpdated' ? [/waiting up to ([\d.]+) s for it to reconnect \(retry (\d+) of (\d+)\)/.exec(e.details ?? '')] : []))
        .flatMap((m) => (m ? [[Number(m[1]), Number(m[2])]] : []));

    async function dropOnRequest(options: BackendOptions): Promise<string> {
      h = await harness({ disconnectStrategy: 'retryWithBackoff', invokeTimeoutMs: 10_000, ...options }, { preExpanded: ['IDE'] });
      h.fake.enqueue({ toolCalls: [{ name: 'OpenFile', id: 'c1', arguments: { path: 'a.ts' } }] }, { text: 'after' });
      h.client.send({ type: 'userMessage', threadId: 't1', text: 'open a.ts' });
      const req = await h.client.next('clientToolInvokeRequest');
      await h.client.drop();
      return req.requestId;
    }

    it('without a resume: waits base·2^r for r = 0, 1, 2 and fails after maxRetries steps', async () => {
      await dropOnRequest({ retryBaseDelayMs: 100, retryMaxDelayMs: 300, maxRetries: 3 });
      await eventually(() => assert.ok(eventFor(h!.events, 'toolCallEnded', 'c1')), 5_000);
      assert.deepEqual(steps(h!), [[0.1, 1], [0.2, 2], [0.3, 3]], 'the third delay (0.4 s) is capped at the maximum');
      assert.match(eventFor(h!.events, 'toolCallEnded', 'c1')!.errorMessage ?? '', /did not come back after 3 retries/);
    });

    it('a resume counts as a step: the re-sent call that loses its connection again continues from r + 1', async () => {
      const requestId = await dropOnRequest({ retryBaseDelayMs: 200, retryMaxDelayMs: 10_000, maxRetries: 3 });
      await delay(50);
      const again = await h!.connect({ resumeSession: h!.sessionId, resumeSecret: h!.resumeSecret });
      assert.equal((await again.next('clientToolInvokeRequest')).requestId, requestId);
      await again.drop();
      await eventually(() => assert.ok(eventFor(h!.events, 'toolCallEnded', 'c1')), 5_000);
      assert.deepEqual(steps(h!), [[0.2, 1], [0.4, 2], [0.8, 3]], 'r was 0 at the first drop and 1 after the resume: the second drop waits base·2 and base·4, then fails');
      assert.equal(eventFor(h!.events, 'toolCallEnded', 'c1')!.errorCode, ErrorCode.Disconnected);
    });
  });
});
