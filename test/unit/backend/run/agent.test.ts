import { strict as assert } from 'node:assert';
import type { ServerTool } from '../../../../src/backend';
import { ErrorCode } from '../../../../src/protocol';
import { delay, ideGroup } from '../../../support/backend-client';
import type { ChatRequestMessage } from '../../../support/fake-openai';
import type { Harness } from '../../../support/backend-harness';
import { API_KEY, eventually, harness } from '../../../support/backend-harness';

const toolNames = (h: Harness, i: number) => (h.fake.requests[i].body.tools ?? []).map((t) => t.function.name);
const systemPrompt = (h: Harness, i: number) => String(h.fake.requests[i].body.messages[0].content);
const toolMessages = (h: Harness, i: number) => h.fake.requests[i].body.messages.filter((m): m is ChatRequestMessage & { role: 'tool' } => m.role === 'tool');
const lastToolText = (h: Harness, i: number) => String(toolMessages(h, i).at(-1)?.content);

describe('backend agent loop with the openai SDK', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('expands a collapsed container, then runs two client tools and a server tool of one batch, results in the order asked', async () => {
    h = await harness();
    const { client, fake } = h;
    fake.enqueue(
      { toolCalls: [{ name: 'IDE', id: 'call_ide' }] },
      {
        toolCalls: [
          { name: 'OpenFile', id: 'call_open', arguments: { path: 'src/a.ts', line: '3', preview: 'true' } },
          { name: 'get_current_time', id: 'call_time', arguments: { timeZone: 'UTC' } },
          { name: 'GetSelection', id: 'call_sel', arguments: {} },
        ],
      },
      { text: 'Opened it; you selected foo.', pieces: 4 },
    );
    let requestsSeenWhenOpenFileAnswered = 0;
    client.autoAnswer(async (req) => {
      if (req.toolName === 'OpenFile') {
        await delay(80);
        requestsSeenWhenOpenFileAnswered = client.all('clientToolInvokeRequest').length;
        return { success: true, content: [{ type: 'text', text: 'opened src/a.ts' }] };
      }
      return { success: true, content: [{ type: 'json', value: { text: 'foo', file: 'src/a.ts' } }] };
    });
    const { runId, finished } = await client.run('t1', 'open a.ts and tell me what I selected');
    assert.equal(finished.reason, 'completed');
    assert.equal(fake.requests.length, 3);

    // Turn 1: one container, the IDE systemPrompt not yet in the system prompt.
    assert.deepEqual(toolNames(h, 0), ['get_current_time', 'IDE']);
    const container = fake.requests[0].body.tools!.find((t) => t.function.name === 'IDE')!;
    assert.match(container.function.description ?? '', /5 tools/);
    assert.doesNotMatch(systemPrompt(h, 0), /IDE RULES/);
    assert.match(systemPrompt(h, 0), /client tools/);

    // Turn 2: the expansion result, the group's tools, its systemPrompt.
    assert.equal(lastToolText(h, 1), 'IDE expanded. Available functions: OpenFile, GetSelection, ShowMessage, ReadFile, DeleteFile\n\nTip: GetSelection first when the user mentions a selection.');
    assert.deepEqual(toolNames(h, 1), ['get_current_time', 'OpenFile', 'GetSelection', 'ShowMessage', 'ReadFile', 'DeleteFile']);
    assert.match(systemPrompt(h, 1), /IDE RULES/);

    // Turn 3: three results in the order the model asked, although OpenFile finished last.
    const results = toolMessages(h, 2).slice(-3);
    assert.deepEqual(results.map((m) => m.tool_call_id), ['call_open', 'call_time', 'call_sel']);
    assert.equal(results[0].content, 'opened src/a.ts');
    assert.match(String(results[1].content), /"timeZone":"UTC"/);
    assert.equal(results[2].content, '{"text":"foo","file":"src/a.ts"}');
    assert.match(systemPrompt(h, 2), /IDE RULES/, 'the systemPrompt stays every turn while expanded');

    // The server tool ran first; the two client calls ran concurrently.
    const idx = (pred: (m: (typeof client.received)[number]) => boolean) => client.received.findIndex(pred);
    const timeEnded = idx((m) => m.type === 'toolCallEnded' && m.callId === 'call_time');
    const firstRequest = idx((m) => m.type === 'clientToolInvokeRequest');
    assert.ok(timeEnded >= 0 && timeEnded < firstRequest, 'server tool ended before any client request went out');
    assert.equal(requestsSeenWhenOpenFileAnswered, 2);

    // Arguments were coerced before the request was sent.
    const open = client.all('clientToolInvokeRequest', (m) => m.toolName === 'OpenFile')[0];
    assert.deepEqual(open.arguments, { path: 'src/a.ts', line: 3, preview: true });
    assert.equal(open.callId, 'call_open');
    assert.equal(open.threadId, 't1');

    // Run events for the UI.
    const started = client.all('toolCallStarted', (m) => m.runId === runId);
    assert.deepEqual(started.map((m) => [m.toolName, m.executor, m.group]), [
      ['IDE', 'server', 'IDE'],
      ['OpenFile', 'client', 'IDE'],
      ['get_current_time', 'server', undefined],
      ['GetSelection', 'client', 'IDE'],
    ]);
    const expanded = client.all('groupExpanded')[0];
    assert.deepEqual(expanded.tools, ['OpenFile', 'GetSelection', 'ShowMessage', 'ReadFile', 'DeleteFile']);
    const state = client.all('toolGroupState', (m) => m.threadId === 't1').at(-1)!;
    assert.equal(state.groups[0].expanded, true);
    assert.ok(client.all('textDelta', (m) => m.runId === runId).length >= 3, 'text is streamed in several deltas');
    assert.equal(client.text(runId), 'Opened it; you selected foo.');
    const ended = client.all('toolCallEnded', (m) => m.callId === 'call_open')[0];
    assert.equal(ended.outcome, 'succeeded');
    assert.ok(ended.durationMs >= 70);
  });

  it('sends the API key to the endpoint but never logs it', async () => {
    h = await harness({}, {}, { maxRetries: 0 });
    h.fake.enqueue({ status: 401 });
    await h.client.run('t1', 'hi');
    assert.equal(h.fake.requests[0].headers.authorization, `Bearer ${API_KEY}`);
    assert.equal(h.fake.requests[0].body.stream, true);
    assert.deepEqual(h.fake.requests[0].body.stream_options, { include_usage: true });
    assert.ok(h.logs.length > 0);
    for (const line of h.logs) assert.equal(line.includes(API_KEY), false, line);
    for (const m of h.client.received) assert.equal(JSON.stringify(m).includes(API_KEY), false);
  });

  describe('model failures', () => {
    it('surfaces a 401 as runError MODEL_AUTH, not retryable, then runFinished error', async () => {
      h = await harness();
      h.fake.enqueue({ status: 401 });
      const { runId, finished } = await h.client.run('t1', 'hi');
      const err = h.client.all('runError', (m) => m.runId === runId)[0];
      assert.equal(err.code, ErrorCode.ModelAuth);
      assert.equal(err.retryable, false);
      assert.match(err.message, /HTTP 401/);
      assert.match(err.message, /Set API Key/);
      assert.equal(finished.reason, 'error');
      assert.equal(h.fake.requests.length, 1, '401 is not retried');
    });

    it('recovers from a 429 followed by success (the SDK honours retry-after)', async () => {
      h = await harness();
      h.fake.enqueue({ status: 429 }, { text: 'hello after waiting' });
      const { runId, finished } = await h.client.run('t1', 'hi');
      assert.equal(finished.reason, 'completed');
      assert.equal(h.client.text(runId), 'hello after waiting');
      assert.equal(h.fake.requests.length, 2);
      assert.equal(h.client.all('runError').length, 0);
    });

    it('surfaces 429 after the retries as MODEL_RATE_LIMITED, retryable', async () => {
      h = await harness({}, {}, { maxRetries: 1 });
      h.fake.enqueue({ status: 429 }, { status: 429 });
      const { runId, finished } = await h.client.run('t1', 'hi');
      const err = h.client.all('runError', (m) => m.runId === runId)[0];
      assert.equal(err.code, ErrorCode.ModelRateLimited);
      assert.equal(err.retryable, true);
      assert.equal(finished.reason, 'error');
      assert.equal(h.fake.requests.length, 2);
    });

    it('surfaces a 500 that persists as MODEL_ERROR after retrying', async () => {
      h = await harness({}, {}, { maxRetries: 1 });
      h.fake.enqueue({ status: 500 }, { status: 500 });
      const { runId } = await h.client.run('t1', 'hi');
      const err = h.client.all('runError', (m) => m.runId === runId)[0];
      assert.equal(err.code, ErrorCode.ModelError);
      assert.equal(err.retryable, true);
      assert.equal(h.fake.requests.length, 2);
    });

    for (const kind of ['badJson', 'truncated', 'noFunctionName'] as const) {
      it(`surfaces a malformed stream (${kind}) as MODEL_ERROR and leaves the thread usable`, async () => {
        h = await harness();
        h.fake.enqueue({ malformed: kind }, { text: 'fine now' });
        const first = await h.client.run('t1', 'hi');
        const err = h.client.all('runError', (m) => m.runId === first.runId)[0];
        assert.equal(err.code, ErrorCode.ModelError);
        assert.match(err.message, /malformed/);
        assert.equal(first.finished.reason, 'error');
        const second = await h.client.run('t1', 'again');
        assert.equal(second.finished.reason, 'completed');
        assert.equal(h.client.text(second.runId), 'fine now');
      });
    }
  });

  describe('tool calls the model gets wrong', () => {
    it('refuses arguments that break the schema, naming the field; the tool never runs', async () => {
      h = await harness({ collapsing: false });
      h.fake.enqueue({ toolCalls: [{ name: 'OpenFile', id: 'c1', arguments: { line: 4 } }] }, { toolCalls: [{ name: 'OpenFile', id: 'c2', arguments: { path: 'a', line: 'four' } }] }, { text: 'sorry' });
      const { finished } = await h.client.run('t1', 'open');
      assert.equal(finished.reason, 'completed');
      assert.equal(h.client.all('clientToolInvokeRequest').length, 0);
      assert.equal(lastToolText(h, 1), 'Error (INVALID_ARGUMENTS): Invalid arguments for OpenFile: "path" is required. The tool was not run.');
      assert.equal(lastToolText(h, 2), 'Error (INVALID_ARGUMENTS): Invalid arguments for OpenFile: "line" must be integer. The tool was not run.');
      assert.equal(h.client.all('toolCallEnded', (m) => m.callId === 'c1')[0].outcome, 'failed');
    });

    it('answers arguments that are not JSON, unknown tools and tools behind a collapsed group with error results', async () => {
      h = await harness();
      h.fake.enqueue(
        { toolCalls: [{ name: 'get_current_time', id: 'c1', arguments: '{"timeZone": ' }, { name: 'Teleport', id: 'c2' }, { name: 'OpenFile', id: 'c3', arguments: { path: 'a' } }] },
        { text: 'ok' },
      );
      await h.client.run('t1', 'go');
      const [bad, unknown, hidden] = toolMessages(h, 1).map((m) => String(m.content));
      assert.match(bad, /^Error \(INVALID_ARGUMENTS\): Invalid arguments for get_current_time: they are not valid JSON/);
      assert.match(unknown, /^Error \(UNKNOWN_TOOL\): There is no function named "Teleport"\. Available functions: get_current_time, IDE\./);
      assert.match(hidden, /^Error \(TOOL_HIDDEN\): "OpenFile" belongs to the collapsed tool group "IDE"; call the function "IDE" first/);
      assert.equal(h.client.all('clientToolInvokeRequest').length, 0);
    });

    it('turns a throwing server tool into an error result and goes on with the run', async () => {
      const boom: ServerTool = { name: 'boom', description: 'fails', parameters: { type: 'object' }, execute: () => { throw new Error('kaput'); } };
      h = await harness({ tools: [boom] });
      h.fake.enqueue({ toolCalls: [{ name: 'boom', id: 'c1' }, { name: 'get_current_time', id: 'c2' }] }, { text: 'recovered' });
      const { finished } = await h.client.run('t1', 'go');
      assert.equal(finished.reason, 'completed');
      assert.equal(String(toolMessages(h, 1)[0].content), 'Error (TOOL_FAILED): boom failed: kaput');
      assert.equal(h.client.all('toolCallEnded', (m) => m.callId === 'c1')[0].outcome, 'failed');
      assert.equal(h.client.all('toolCallEnded', (m) => m.callId === 'c2')[0].outcome, 'succeeded');
    });

    it('stops a run that keeps calling tools at maxTurns', async () => {
      h = await harness({ maxTurns: 2 });
      h.fake.enqueue({ toolCalls: [{ name: 'get_current_time', id: 'c1' }] }, { toolCalls: [{ name: 'get_current_time', id: 'c2' }] });
      const { finished } = await h.client.run('t1', 'loop');
      assert.equal(finished.reason, 'maxTurns');
      assert.equal(h.fake.requests.length, 2);
    });
  });

  describe('runs per thread', () => {
    it('refuses a second message while the thread runs with RUN_BUSY, and lets another thread run', async () => {
      h = await harness();
      h.fake.enqueue({ hang: true }, { text: 'other thread' });
      h.client.send({ type: 'userMessage', threadId: 't1', text: 'slow' });
      await h.client.next('runStarted');
      h.client.send({ type: 'userMessage', threadId: 't1', text: 'again' });
      const busy = await h.client.next('error');
      assert.equal(busy.code, ErrorCode.RunBusy);
      assert.equal(busy.relatedId, 't1');
      const other = await h.client.run('t2', 'hi');
      assert.equal(other.finished.reason, 'completed');
      h.client.send({ type: 'cancel', threadId: 't1' });
      assert.equal((await h.client.next('runFinished', (m) => m.threadId === 't1')).reason, 'cancelled');
    });

    it('cancels a run while the model streams', async () => {
      h = await harness();
      h.fake.enqueue({ hang: true });
      h.client.send({ type: 'userMessage', threadId: 't1', text: 'slow' });
      const started = await h.client.next('runStarted');
      h.client.send({ type: 'cancel', runId: started.runId });
      const finished = await h.client.next('runFinished');
      assert.equal(finished.reason, 'cancelled');
      assert.equal(h.client.all('runError').length, 0);
    });

    it('keeps client tool state across turns; resetThread clears it and the history', async () => {
      h = await harness();
      h.fake.enqueue({ toolCalls: [{ name: 'IDE', id: 'c1' }] }, { text: 'expanded' }, { text: 'turn two' }, { text: 'fresh' });
      await h.client.run('t1', 'expand');
      await h.client.run('t1', 'next');
      assert.ok(toolNames(h, 2).includes('OpenFile'), 'turn two still sees the expanded group');
      assert.match(systemPrompt(h, 2), /IDE RULES/);
      assert.equal(h.fake.requests[2].body.messages.filter((m) => m.role === 'user').length, 2);

      h.client.send({ type: 'resetThread', threadId: 't1' });
      const state = await h.client.next('toolGroupState', (m) => m.threadId === 't1' && !m.groups[0].expanded);
      assert.equal(state.groups[0].expanded, false);
      await h.client.run('t1', 'start over');
      assert.deepEqual(toolNames(h, 3), ['get_current_time', 'IDE']);
      assert.equal(h.fake.requests[3].body.messages.filter((m) => m.role === 'user').length, 1);
    });

    it('forgets every thread when a resumed hello asks for reset', async () => {
      h = await harness();
      h.fake.enqueue({ toolCalls: [{ name: 'IDE', id: 'c1' }] }, { text: 'expanded' }, { text: 'fresh' });
      await h.client.run('t1', 'expand');
      await h.client.drop();
      const again = await h.connect({ resumeSession: h.sessionId, resumeSecret: h.resumeSecret, reset: true });
      assert.equal(again.all('welcome')[0].resumed, true);
      await again.run('t1', 'hello');
      assert.deepEqual(toolNames(h, 2), ['get_current_time', 'IDE']);
      assert.equal(h.fake.requests[2].body.messages.length, 2);
    });

    it('pre-expands groups named in hello.preExpanded', async () => {
      h = await harness({}, { preExpanded: ['IDE'] });
      h.fake.enqueue({ text: 'hi' });
      await h.client.run('t1', 'hi');
      assert.deepEqual(toolNames(h, 0), ['get_current_time', 'OpenFile', 'GetSelection', 'ShowMessage', 'ReadFile', 'DeleteFile']);
    });

    it('shows every tool directly when collapsing is off', async () => {
      h = await harness({ collapsing: false });
      h.fake.enqueue({ text: 'hi' });
      await h.client.run('t1', 'hi');
      assert.deepEqual(toolNames(h, 0), ['get_current_time', 'OpenFile', 'GetSelection', 'ShowMessage', 'ReadFile', 'DeleteFile']);
      assert.match(systemPrompt(h, 0), /IDE RULES/);
    });

    it('adds the editor context of a user message to what the model reads', async () => {
      h = await harness();
      h.fake.enqueue({ text: 'ok' });
      h.client.send({ type: 'userMessage', threadId: 't1', text: 'explain', context: { file: 'src/a.ts', language: 'typescript', selectedText: 'const x = 1;', selection: { startLine: 4, startCharacter: 0, endLine: 4, endCharacter: 12 } } });
      await h.client.next('runFinished');
      const user = h.fake.requests[0].body.messages[1];
      assert.match(String(user.content), /^explain\n\n\[Editor context\]\nFile: src\/a\.ts \(typescript\)\nSelection: line 5, column 1 to line 5, column 13\nSelected text:\n```\nconst x = 1;\n```$/);
    });
  });

  describe('augmentation and tool group updates', () => {
    it('applies an augmentation from a tool response before the next model call and reports the new state', async () => {
      h = await harness({}, { preExpanded: ['IDE'] });
      h.fake.enqueue({ toolCalls: [{ name: 'OpenFile', id: 'c1', arguments: { path: 'a' } }] }, { text: 'done' });
      h.client.autoAnswer(() => ({
        success: true,
        content: [{ type: 'text', text: 'opened' }],
        augmentation: {
          injectGroups: [{ name: 'Git', description: 'git', startCollapsed: false, systemPrompt: 'GIT RULES', tools: [{ name: 'GitStatus', description: 'status', parameters: { type: 'object' } }] }],
          hideTools: ['DeleteFile'],
          addContext: [{ name: 'branch', text: 'main' }],
        },
      }));
      await h.client.run('t1', 'open a');
      assert.deepEqual(toolNames(h, 1), ['get_current_time', 'OpenFile', 'GetSelection', 'ShowMessage', 'ReadFile', 'GitStatus']);
      assert.match(systemPrompt(h, 1), /GIT RULES/);
      assert.match(systemPrompt(h, 1), /## Context: branch\nmain/);
      const state = h.client.all('toolGroupState', (m) => m.threadId === 't1').at(-1)!;
      assert.deepEqual(state.groups.map((g) => g.name), ['IDE', 'Git']);
      assert.equal(state.groups[0].tools.find((t) => t.name === 'DeleteFile')?.visible, false);
      assert.deepEqual(state.context, [{ name: 'branch', text: 'main' }]);
    });

    it('applies updateToolGroups to the session at once and to each thread at its next model call, with one toolGroupState each', async () => {
      h = await harness();
      h.fake.enqueue({ text: 'one' }, { text: 'two' });
      await h.client.run('t1', 'hi');
      h.client.send({ type: 'updateToolGroups', augmentation: { expandGroups: ['IDE'], addContext: [{ name: 'note', text: 'from update' }] } });
      const session = await h.client.next('toolGroupState', (m) => m.threadId === undefined && m.groups[0].expanded);
      assert.deepEqual(session.context, [{ name: 'note', text: 'from update' }]);
      await h.client.run('t1', 'again');
      assert.equal(h.client.all('toolGroupState', (m) => m.threadId === 't1' && m.groups[0].expanded).length, 1);
      assert.ok(toolNames(h, 1).includes('OpenFile'));
      assert.match(systemPrompt(h, 1), /from update/);
    });

    it('rejects an injected tool with an invalid schema with INVALID_SCHEMA naming it', async () => {
      h = await harness();
      h.client.send({
        type: 'updateToolGroups',
        augmentation: { injectGroups: [{ name: 'Bad', description: '', tools: [{ name: 'Weird', description: '', parameters: { type: 'object', properties: { a: { minimum: 'zero' } } } }] }] },
      });
      const err = await h.client.next('error');
      assert.equal(err.code, ErrorCode.InvalidSchema);
      assert.match(err.message, /Tool "Weird" \(group "Bad"\)/);
      const state = await h.client.next('toolGroupState', (m) => m.groups.some((g) => g.name === 'Bad'));
      assert.deepEqual(state.groups.find((g) => g.name === 'Bad')?.tools, []);
    });

    it('activates a skill the model calls, revealing its tools and its systemPrompt', async () => {
      const group = ideGroup({ skills: [{ name: 'ReviewSelection', description: 'Review the selection', tools: ['GetSelection', 'ShowMessage'], systemPrompt: 'REVIEW STEPS', functionResult: 'Start with GetSelection.' }] });
      h = await harness({}, { toolGroups: [group] });
      h.fake.enqueue({ toolCalls: [{ name: 'ReviewSelection', id: 'c1' }] }, { text: 'ready' });
      await h.client.run('t1', 'review');
      assert.deepEqual(toolNames(h, 0), ['get_current_time', 'IDE', 'ReviewSelection']);
      assert.equal(lastToolText(h, 1), 'ReviewSelection skill activated. Available functions: GetSelection, ShowMessage\n\nStart with GetSelection.');
      assert.deepEqual(toolNames(h, 1), ['get_current_time', 'IDE', 'GetSelection', 'ShowMessage']);
      assert.match(systemPrompt(h, 1), /REVIEW STEPS/);
      const expanded = h.client.all('groupExpanded')[0];
      assert.equal(expanded.skill, 'ReviewSelection');
    });
  });

  describe('hooks', () => {
    it('blocks a call with a reason the model reads; the client never sees it', async () => {
      h = await harness({}, { preExpanded: ['IDE'] });
      h.backend.hooks.beforeToolCall((call) => (call.toolName === 'DeleteFile' ? { block: true, reason: 'this backend is read-only' } : undefined));
      h.fake.enqueue({ toolCalls: [{ name: 'DeleteFile', id: 'c1', arguments: { path: 'x' } }] }, { text: 'ok' });
      await h.client.run('t1', 'delete x');
      assert.equal(h.client.all('clientToolInvokeRequest').length, 0);
      assert.equal(h.client.all('toolCallEnded')[0].outcome, 'denied');
      assert.equal(lastToolText(h, 1), 'Error (PERMISSION_DENIED): The backend blocked DeleteFile: this backend is read-only');
    });

    it('rewrites arguments (validated again) and results', async () => {
      h = await harness({}, { preExpanded: ['IDE'] });
      const seen: string[] = [];
      h.backend.hooks.beforeToolCall((call) => {
        seen.push(`${call.executor}:${call.toolName}`);
        return call.toolName === 'OpenFile' ? { arguments: { ...call.arguments, path: 'rewritten.ts' } } : undefined;
      });
      const remove = h.backend.hooks.afterToolCall((call, result) => (call.toolName === 'get_current_time' ? { ...result, content: [{ type: 'text', text: 'It is tea time.' }] } : undefined));
      h.fake.enqueue({ toolCalls: [{ name: 'OpenFile', id: 'c1', arguments: { path: 'a.ts' } }, { name: 'get_current_time', id: 'c2' }] }, { text: 'ok' });
      h.client.autoAnswer((req) => ({ success: true, content: [{ type: 'text', text: `opened ${String(req.arguments.path)}` }] }));
      await h.client.run('t1', 'go');
      assert.deepEqual(h.client.all('clientToolInvokeRequest')[0].arguments, { path: 'rewritten.ts' });
      const [open, time] = toolMessages(h, 1).map((m) => String(m.content));
      assert.equal(open, 'opened rewritten.ts');
      assert.equal(time, 'It is tea time.');
      assert.deepEqual(seen.sort(), ['client:OpenFile', 'server:get_current_time']);
      remove();
      h.fake.enqueue({ toolCalls: [{ name: 'get_current_time', id: 'c3' }] }, { text: 'ok' });
      await h.client.run('t1', 'again');
      assert.notEqual(lastToolText(h, 3), 'It is tea time.');
    });

    it('refuses rewritten arguments that break the schema', async () => {
      h = await harness({}, { preExpanded: ['IDE'] });
      h.backend.hooks.beforeToolCall(() => ({ arguments: { path: { not: 'a string' } } }));
      h.fake.enqueue({ toolCalls: [{ name: 'ReadFile', id: 'c1', arguments: { path: 'a' } }] }, { text: 'ok' });
      await h.client.run('t1', 'go');
      assert.equal(h.client.all('clientToolInvokeRequest').length, 0);
      assert.match(lastToolText(h, 1), /^Error \(INVALID_ARGUMENTS\)/);
    });

    it('reports run events to library listeners', async () => {
      h = await harness();
      h.fake.enqueue({ text: 'hello' });
      await h.client.run('t1', 'hi');
      await eventually(() => assert.deepEqual(h!.events.map((e) => e.type), ['runStarted', 'textDelta', 'textDelta', 'textDelta', 'runFinished']));
    });
  });
});
