/**
 * A fake Anthropic Messages endpoint for Claude Code (through claude-code-acp), on the real wire:
 * `POST /v1/messages` (Claude Code adds `?beta=true`) streamed as SSE (`message_start`,
 * `content_block_start` / `_delta` (`text_delta`, `input_json_delta`) / `_stop`, `message_delta`
 * with the stop reason and usage, `message_stop`) or answered as one JSON message; and
 * `POST /v1/messages/count_tokens` answered `{input_tokens}`. Requests without tools (titles,
 * quota and topic checks) are side calls answered with a short text.
 */
import type * as http from 'node:http';
import { listenLoopback, sendJson, startSse } from './http';
import { pieces, readJson, RequestLog, stepFor, textOf, type AgentStep, type FakeModel, type ModelRequest } from './script';

interface AnthropicMessage {
  role: string;
  content: unknown;
}

export async function startFakeAnthropic(initial: AgentStep[]): Promise<FakeModel> {
  let steps = initial;
  const requests = new RequestLog();
  let serial = 0;

  const server = await listenLoopback((req, res) => void handle(req, res));

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const body = await readJson(req);
    if (req.method !== 'POST' || body === undefined) {
      sendJson(res, body === undefined ? 400 : 404, { type: 'error', error: { type: 'not_found_error', message: `fake-anthropic: ${req.method} ${url.pathname}` } });
      return;
    }
    const recorded = read(url.pathname, body, req.headers);
    requests.add(recorded);
    if (url.pathname === '/v1/messages/count_tokens') {
      sendJson(res, 200, { input_tokens: 1234 });
      return;
    }
    if (url.pathname !== '/v1/messages') {
      sendJson(res, 404, { type: 'error', error: { type: 'not_found_error', message: `fake-anthropic: no route ${url.pathname}` } });
      return;
    }
    const id = `msg_fake${++serial}`;
    let blocks: Block[];
    try {
      blocks = recorded.side ? [{ type: 'text', text: 'Fake title' }] : blocksFor(stepFor(steps, recorded), serial);
    } catch (e) {
      sendJson(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: (e as Error).message } });
      return;
    }
    const stopReason = blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
    const model = String(body.model ?? 'claude-fake');
    const usage = { input_tokens: 120, output_tokens: 30, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
    if (body.stream !== true) {
      sendJson(res, 200, { id, type: 'message', role: 'assistant', model, content: blocks, stop_reason: stopReason, stop_sequence: null, usage });
      return;
    }
    const send = startSse(res);
    send({ type: 'message_start', message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } }, 'message_start');
    blocks.forEach((block, index) => {
      if (block.type === 'text') {
        send({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }, 'content_block_start');
        for (const text of pieces(block.text)) send({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } }, 'content_block_delta');
      } else {
        send({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } }, 'content_block_start');
        for (const partial_json of pieces(JSON.stringify(block.input))) send({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } }, 'content_block_delta');
      }
      send({ type: 'content_block_stop', index }, 'content_block_stop');
    });
    send({ type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } }, 'message_delta');
    send({ type: 'message_stop' }, 'message_stop');
    res.end();
  }

  return {
    baseUrl: `http://127.0.0.1:${server.port}`,
    requests,
    setSteps: (next) => (steps = next),
    close: () => server.close(),
  };
}

type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

function blocksFor(resolved: ReturnType<typeof stepFor>, serial: number): Block[] {
  const { step, toolName } = resolved;
  if (!('tool' in step)) return [{ type: 'text', text: step.text }];
  const call: Block = { type: 'tool_use', id: `toolu_fake${serial}`, name: toolName as string, input: step.args };
  return step.text ? [{ type: 'text', text: step.text }, call] : [call];
}

function read(path: string, body: Record<string, unknown>, headers: http.IncomingHttpHeaders): ModelRequest {
  const messages = Array.isArray(body.messages) ? body.messages as AnthropicMessage[] : [];
  const tools = Array.isArray(body.tools) ? (body.tools as { name?: unknown }[]).map((t) => String(t.name)) : [];
  const toolResults: string[] = [];
  for (const m of messages) {
    if (!Array.isArray(m.content)) continue;
    for (const block of m.content as { type?: string; content?: unknown }[]) if (block.type === 'tool_result') toolResults.push(textOf(block.content));
  }
  return {
    wire: 'anthropic',
    path,
    body,
    headers,
    side: path !== '/v1/messages' || tools.length === 0,
    replies: messages.filter((m) => m.role === 'assistant').length,
    toolResults,
    tools,
  };
}
