/**
 * A lean fake model for the scaling benchmark (scaling.ts), in its own process, on the real
 * OpenAI Chat Completions wire (streamed SSE chunks, as test/support/fake-openai.ts speaks it, but
 * recording nothing, so a run of minutes stays small). Each turn of a thread is one tool call and
 * one answer: when the request's history since the last user message holds no `ReadFile` call
 * yet, the reply calls `ReadFile`; otherwise it answers in text. Tells its parent the port over IPC.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

type Parent = { send(message: unknown): void };

interface Message {
  role: string;
  tool_calls?: { function?: { name?: string } }[];
}

interface Body {
  messages?: Message[];
  stream_options?: { include_usage?: boolean };
}

let served = 0;

function chunk(id: string, delta: unknown, finish: string | null): string {
  return `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model: 'fake', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
}

/** Whether the current turn (after the last user message) already called ReadFile. */
function calledAlready(messages: Message[]): boolean {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role === 'user') return false;
    if (m.role === 'assistant' && m.tool_calls?.some((c) => c.function?.name === 'ReadFile')) return true;
  }
  return false;
}

function reply(body: Body): string {
  const id = `chatcmpl-${++served}`;
  let out: string;
  if (calledAlready(body.messages ?? [])) {
    out = chunk(id, { role: 'assistant', content: 'The file says hello.' }, null) + chunk(id, {}, 'stop');
  } else {
    const call = { index: 0, id: `call_${served}`, type: 'function', function: { name: 'ReadFile', arguments: '{"path":"README.md"}' } };
    out = chunk(id, { role: 'assistant', tool_calls: [call] }, null) + chunk(id, {}, 'tool_calls');
  }
  if (body.stream_options?.include_usage) {
    out += `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model: 'fake', choices: [], usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 } })}\n\n`;
  }
  return `${out}data: [DONE]\n\n`;
}

const server = http.createServer((req, res) => {
  const parts: Buffer[] = [];
  req.on('data', (c: Buffer) => parts.push(c));
  req.on('end', () => {
    let body: Body;
    try {
      body = JSON.parse(Buffer.concat(parts).toString('utf8')) as Body;
    } catch {
      res.writeHead(400, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'bad JSON', type: 'invalid_request_error', param: null, code: null } }));
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
    res.end(reply(body));
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  (process as unknown as Parent).send({ type: 'listening', port: (server.address() as AddressInfo).port });
});
process.on('message', (m: { type: string }) => {
  if (m.type === 'served') (process as unknown as Parent).send({ type: 'served', served });
  if (m.type === 'exit') process.exit(0);
});
process.on('disconnect', () => process.exit(0));
