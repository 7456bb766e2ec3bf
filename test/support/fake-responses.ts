/**
 * The Responses API wire for fake-openai.ts, as the real service streams it (`POST /responses` with
 * `stream: true`): `event: <type>` + `data: {json}` SSE pairs with a growing `sequence_number`:
 * response.created, response.in_progress; per text message output_item.added, content_part.added,
 * output_text.delta…, output_text.done, content_part.done, output_item.done; per function call (one
 * output item each, so parallel calls have their own output_index) output_item.added with the name
 * and call_id, function_call_arguments.delta…, function_call_arguments.done, output_item.done; then
 * response.completed carrying the whole response and its usage. No `[DONE]` line (unlike Chat
 * Completions). Non-streaming requests get the `response` object.
 */
import type * as http from 'node:http';

export interface ResponsesToolCall {
  name: string;
  /** The JSON text of the arguments, verbatim. */
  arguments: string;
  id?: string;
  /** The tool namespace (Codex offers MCP tools as a namespace tool and expects it on the call). */
  namespace?: string;
}

export type ResponsesReply =
  | { text: string; pieces: number; usage?: Record<string, unknown> }
  | { toolCalls: ResponsesToolCall[]; text?: string; usage?: Record<string, unknown> }
  | { malformed: 'badJson' | 'truncated' | 'noFunctionName' }
  /** The service gives up mid-response: `response.failed` with its error. */
  | { failed: { code: string; message: string } }
  /** The output is cut short (`response.incomplete`), e.g. at max_output_tokens. */
  | { incomplete: 'max_output_tokens' | 'content_filter'; text: string };

export const RESPONSES_USAGE = { input_tokens: 42, input_tokens_details: { cached_tokens: 16 }, output_tokens: 7, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 49 };

export function respondResponses(res: http.ServerResponse, body: { model?: unknown; stream?: unknown }, reply: ResponsesReply, id: string): void {
  const model = String(body.model);
  const created_at = Math.floor(Date.now() / 1000);
  const response = (status: string, output: unknown[], usage: unknown = null) => ({
    id: `resp_${id}`, object: 'response', created_at, status, error: null, incomplete_details: null, instructions: null,
    model, output, parallel_tool_calls: true, tool_choice: 'auto', tools: [], temperature: 1, top_p: 1, store: false, metadata: {}, usage,
  });
  const items = outputItems(reply, id);
  const usage = 'usage' in reply && reply.usage ? reply.usage : RESPONSES_USAGE;

  if (!body.stream) {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(response('completed', items.map((i) => i.done), usage)));
    return;
  }

  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
  let sequence = 0;
  const send = (type: string, fields: Record<string, unknown>) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...fields })}\n\n`);
  send('response.created', { response: response('in_progress', []) });
  send('response.in_progress', { response: response('in_progress', []) });

  if ('failed' in reply) {
    send('response.failed', { response: { ...response('failed', []), error: reply.failed } });
    res.end();
    return;
  }
  if ('malformed' in reply && reply.malformed === 'badJson') {
    res.write('event: response.output_text.delta\ndata: {"type": "response.output_text.delta", "delta": "Hel\n\n');
    res.end();
    return;
  }
  items.forEach((item, output_index) => {
    send('response.output_item.added', { output_index, item: item.added });
    item.stream(output_index, send);
    send('response.output_item.done', { output_index, item: item.done });
  });
  if ('malformed' in reply && reply.malformed === 'truncated') {
    res.end();
    return;
  }
  if ('incomplete' in reply) send('response.incomplete', { response: { ...response('incomplete', items.map((i) => i.done), usage), incomplete_details: { reason: reply.incomplete } } });
  else send('response.completed', { response: response('completed', items.map((i) => i.done), usage) });
  res.end();
}

type Send = (type: string, fields: Record<string, unknown>) => void;
interface OutputItem {
  added: Record<string, unknown>;
  stream(outputIndex: number, send: Send): void;
  done: Record<string, unknown>;
}

function outputItems(reply: ResponsesReply, id: string): OutputItem[] {
  if ('failed' in reply) return [];
  if ('incomplete' in reply) return [message(reply.text, 2, `${id}_0`)];
  if ('malformed' in reply) {
    if (reply.malformed === 'noFunctionName') return [functionCall({ name: '', arguments: '{}' }, `${id}_0`)];
    return [message('Hello, I was about to', 3, `${id}_0`)];
  }
  if ('toolCalls' in reply) {
    const calls = reply.toolCalls.map((c, i) => functionCall(c, `${id}_${i}`));
    return reply.text ? [message(reply.text, 1, `${id}_text`), ...calls] : calls;
  }
  return [message(reply.text, reply.pieces, `${id}_0`)];
}

function message(text: string, pieces: number, id: string): OutputItem {
  const itemId = `msg_${id}`;
  const part = (t: string) => ({ type: 'output_text', text: t, annotations: [], logprobs: [] });
  return {
    added: { id: itemId, type: 'message', status: 'in_progress', role: 'assistant', content: [] },
    stream(output_index, send) {
      send('response.content_part.added', { item_id: itemId, output_index, content_index: 0, part: part('') });
      for (const delta of split(text, pieces)) send('response.output_text.delta', { item_id: itemId, output_index, content_index: 0, delta, logprobs: [] });
      send('response.output_text.done', { item_id: itemId, output_index, content_index: 0, text, logprobs: [] });
      send('response.content_part.done', { item_id: itemId, output_index, content_index: 0, part: part(text) });
    },
    done: { id: itemId, type: 'message', status: 'completed', role: 'assistant', content: [part(text)] },
  };
}

function functionCall(call: ResponsesToolCall, id: string): OutputItem {
  const itemId = `fc_${id}`;
  const callId = call.id ?? `call_${id}`;
  const named = { ...(call.name ? { name: call.name } : {}), ...(call.namespace !== undefined ? { namespace: call.namespace } : {}) };
  return {
    added: { id: itemId, type: 'function_call', status: 'in_progress', call_id: callId, ...named, arguments: '' },
    stream(output_index, send) {
      for (const delta of split(call.arguments, 3)) send('response.function_call_arguments.delta', { item_id: itemId, output_index, delta });
      send('response.function_call_arguments.done', { item_id: itemId, output_index, ...named, arguments: call.arguments });
    },
    done: { id: itemId, type: 'function_call', status: 'completed', call_id: callId, ...named, arguments: call.arguments },
  };
}

/** Splits text into `n` non-empty pieces (fewer when it is shorter). */
function split(text: string, n: number): string[] {
  if (text.length === 0) return [];
  const size = Math.max(1, Math.ceil(text.length / n));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}
