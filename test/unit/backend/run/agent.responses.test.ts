/**
 * The agent loop over the Responses API: the same collapsed group, client tools and parallel calls
 * as on Chat Completions (agent.test.ts), with the real SDK against the fake's Responses wire.
 */
import { strict as assert } from 'node:assert';
import type { Harness } from '../../../support/backend-harness';
import { harness } from '../../../support/backend-harness';
import type { ResponsesRequestItem } from '../../../support/fake-openai';

interface FlatTool { type: string; name: string; description?: string }
const input = (h: Harness, i: number): ResponsesRequestItem[] => h.fake.requests[i].body.input ?? [];
const toolNames = (h: Harness, i: number) => ((h.fake.requests[i].body.tools ?? []) as unknown as FlatTool[]).map((t) => t.name);
const outputs = (h: Harness, i: number) => input(h, i).filter((item) => item.type === 'function_call_output');

describe('backend agent loop on the Responses API', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('expands a collapsed container, then runs two parallel client tool calls, results fed back as function_call_output items', async () => {
    h = await harness({}, {}, { api: 'responses' });
    const { client, fake } = h;
    fake.enqueue(
      { toolCalls: [{ name: 'IDE', id: 'call_ide' }] },
      { toolCalls: [{ name: 'OpenFile', id: 'call_open', arguments: { path: 'src/a.ts', line: '3' } }, { name: 'GetSelection', id: 'call_sel', arguments: {} }] },
      { text: 'Opened it; you selected foo.', pieces: 4 },
    );
    client.autoAnswer((req) => Promise.resolve(req.toolName === 'OpenFile'
      ? { success: true, content: [{ type: 'text', text: 'opened src/a.ts' }] }
      : { success: true, content: [{ type: 'json', value: { text: 'foo' } }] }));
    const { runId, finished } = await client.run('t1', 'open a.ts and tell me what I selected');
    assert.equal(finished.reason, 'completed');
    assert.deepEqual(fake.requests.map((r) => [r.path, r.wire]), Array(3).fill(['/v1/responses', 'responses']));

    // Turn 1: one container function in the flat Responses tool shape.
    assert.deepEqual(toolNames(h, 0), ['get_current_time', 'IDE']);
    const container = (fake.requests[0].body.tools as unknown as FlatTool[]).find((t) => t.name === 'IDE')!;
    assert.equal(container.type, 'function');
    assert.match(container.description ?? '', /5 tools/);
    assert.doesNotMatch(String(input(h, 0)[0].content), /IDE RULES/);

    // Turn 2: the expansion call and its output, the group's tools, its systemPrompt.
    assert.deepEqual(input(h, 1).filter((i) => i.type === 'function_call').map((i) => [i.call_id, i.name]), [['call_ide', 'IDE']]);
    assert.match(String(outputs(h, 1).at(-1)?.output), /^IDE expanded\. Available functions: OpenFile, GetSelection/);
    assert.deepEqual(toolNames(h, 1), ['get_current_time', 'OpenFile', 'GetSelection', 'ShowMessage', 'ReadFile', 'DeleteFile']);
    assert.match(String(input(h, 1)[0].content), /IDE RULES/);

    // The two parallel calls reached the client with coerced arguments, one request each.
    const requests = client.all('clientToolInvokeRequest');
    assert.deepEqual(requests.map((r) => [r.callId, r.toolName]), [['call_open', 'OpenFile'], ['call_sel', 'GetSelection']]);
    assert.deepEqual(requests[0].arguments, { path: 'src/a.ts', line: 3 });

    // Turn 3: both outputs, answering the calls in the order asked.
    assert.deepEqual(outputs(h, 2).slice(-2), [
      { type: 'function_call_output', call_id: 'call_open', output: 'opened src/a.ts' },
      { type: 'function_call_output', call_id: 'call_sel', output: '{"text":"foo"}' },
    ]);
    assert.equal(client.text(runId), 'Opened it; you selected foo.');
    assert.ok(client.all('textDelta', (m) => m.runId === runId).length >= 3, 'text is streamed in several deltas');
    assert.equal(client.all('groupExpanded')[0].group, 'IDE');
  });
});
