/**
 * A stand-in for the OpenAI chat-completions endpoint, on 127.0.0.1 and a free port, for tests that
 * drive the real `openai` SDK against it. It speaks the wire format of the real service:
 * - streaming: `data: {chat.completion.chunk}` SSE lines; tool-call arguments split over several
 *   chunks with index, id, type and function.name on the first; finish_reason `tool_calls` or
 *   `stop`; a final usage chunk (empty choices) when `stream_options.include_usage`; `data: [DONE]`.
 * - non-streaming: one `chat.completion` JSON object.
 * - errors: the real error body `{ "error": { message, type, param, code } }` for 401, 429 (with
 *   `retry-after` and `retry-after-ms`), 500 and others.
 * - the Responses API on `POST /v1/responses` (fake-responses.ts has that wire), from the same scripts.
 * - Azure OpenAI's URL shape: `/openai/deployments/{deployment}/chat/completions` and
 *   `/openai/responses`, each with the `api-version` query parameter Azure requires (400 without it).
 * Each test scripts the replies (a queue, one per request) and reads back the requests received.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { respondResponses, type ResponsesReply } from './fake-responses';

export interface ScriptedToolCall {
  name: string;
  /** Responses wire only: the tool namespace the name belongs to (Codex offers MCP tools in one). */
  namespace?: string;
  /** An object is sent as its JSON text; a string is sent verbatim. */
  arguments?: unknown;
  id?: string;
}

export type Script =
  | { text: string; pieces?: number; usage?: ScriptedUsage }
  | { toolCalls: ScriptedToolCall[]; text?: string; usage?: ScriptedUsage }
  | { status: number; message?: string; code?: string; headers?: Record<string, string> }
  | { malformed: 'badJson' | 'truncated' | 'noFunctionName' }
  /** A reply only the Responses wire has (response.failed, response.incomplete); a chat request gets a 400. */
  | { responses: ResponsesReply }
  /** Never answers; the connection stays open until the client gives up or the server closes. */
  | { hang: true }
  /** A streamed answer that never ends: `text` every `everyMs` (0: as fast as the client reads) until the client goes away. */
  | { endless: { text: string; everyMs: number } }
  /** An error status whose body is `bodyBytes` of JSON-looking text, sent as fast as the client reads. */
  | { hugeError: { status: number; bodyBytes: number } }
  /** A stream whose one event never ends: `data: ` and then `bytes` of text with no line break, as fast as the client reads. */
  | { unterminatedEvent: { bytes: number } }
  /** This response body as it is, an event stream, in one write (a body captured from a scripted reply). */
  | { verbatim: string }
  | ((request: RecordedRequest) => Script);

/** The usage the reply reports (default 42 prompt, 7 completion, 0 cached); `cached: null` leaves prompt_tokens_details out, as some compatible servers do. */
export interface ScriptedUsage {
  prompt: number;
  completion: number;
  cached?: number | null;
}

export interface RecordedRequest {
  method: string;
  path: string;
  /** The query parameters (Azure's `api-version`). */
  query: Record<string, string>;
  /** Which API the path names. */
  wire: 'chat' | 'responses';
  /** The Azure deployment in the path, when the request used Azure's shape. */
  deployment?: string;
  headers: http.IncomingHttpHeaders;
  // The request body as JSON; tests read messages, tools, stream, stream_options from it.
  body: ChatRequestBody;
}

export interface ChatRequestBody {
  model: string;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  messages: ChatRequestMessage[];
  tools?: { type: 'function'; function: { name: string; description?: string; parameters?: Record<string, unknown> } }[];
  /** Responses API requests carry `input` instead of `messages` (and flat `tools`: read them as `unknown`). */
  input?: ResponsesRequestItem[];
  [key: string]: unknown;
}

/** One Responses API input item: a message, a function call the model made, or its output. */
export interface ResponsesRequestItem {
  type?: 'message' | 'function_call' | 'function_call_output';
  role?: 'system' | 'user' | 'assistant' | 'developer';
  content?: string | { type: string; text?: string; image_url?: string }[];
  call_id?: string;
  name?: string;
  arguments?: string;
  output?: string;
}

export interface ChatRequestMessage {
  role: 'system' | 'user' | 'assistant' | 'tool' | 'developer';
  content: string | null | { type: string; text?: string; image_url?: { url: string } }[];
  tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

export interface FakeOpenAI {
  /** Pass as `baseURL` to the SDK: `http://127.0.0.1:PORT/v1`. */
  readonly baseURL: string;
  /** Pass as Azure's `endpoint`: `http://127.0.0.1:PORT/` (the SDK adds `/openai`). */
  readonly azureEndpoint: string;
  readonly requests: RecordedRequest[];
  enqueue(...scripts: Script[]): void;
  /** Resolves when at least `count` requests have arrived (rejects after `timeoutMs`). */
  waitForRequests(count: number, timeoutMs?: number): Promise<RecordedRequest[]>;
  close(): Promise<void>;
}

const ERROR_DEFAULTS: Record<number, { message: string; type: string; code: string | null }> = {
  400: { message: 'Invalid request.', type: 'invalid_request_error', code: null },
  401: { message: 'Incorrect API key provided: sk-wron*****-key. You can find your API key at https://platform.openai.com/account/api-keys.', type: 'invalid_request_error', code: 'invalid_api_key' },
  403: { message: 'You are not allowed to sample from this model.', type: 'invalid_request_error', code: null },
  404: { message: 'The model `missing` does not exist or you do not have access to it.', type: 'invalid_request_error', code: 'model_not_found' },
  429: { message: 'Rate limit reached for requests. Please try again in 10ms.', type: 'requests', code: 'rate_limit_exceeded' },
  500: { message: 'The server had an error while processing your request. Sorry about that!', type: 'server_error', code: null },
};

/** The URLs the real services answer: OpenAI's, then Azure's (deployment in the path for chat completions). */
const ROUTES: { pattern: RegExp; wire: 'chat' | 'responses'; azure: boolean }[] = [
  { pattern: /^\/v1\/chat\/completions$/, wire: 'chat', azure: false },
  { pattern: /^\/v1\/responses$/, wire: 'responses', azure: false },
  { pattern: /^\/openai\/deployments\/([^/]+)\/chat\/completions$/, wire: 'chat', azure: true },
  { pattern: /^\/openai\/responses$/, wire: 'responses', azure: true },
];

export interface FakeOpenAIOptions {
  /** Answers a request when the queue is empty (a script that follows the request's history). */
  respond?: (request: RecordedRequest) => Script;
}

export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const queue: Script[] = [];
  const requests: RecordedRequest[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const open = new Set<http.ServerResponse>();
  let serial = 0;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const path = url.pathname;
      const route = ROUTES.map((r) => ({ r, m: r.pattern.exec(path) })).find((x) => x.m);
      if (req.method !== 'POST' || !route) {
        sendError(res, 404, { message: `Unknown request URL: ${req.method} ${path}.`, type: 'invalid_request_error', code: 'unknown_url' });
        return;
      }
      const query = Object.fromEntries(url.searchParams);
      if (route.r.azure && !query['api-version']) {
        sendError(res, 400, { message: 'The api-version query parameter (?api-version=) is required for all requests.', type: 'invalid_request_error', code: 'MissingApiVersionParameter' });
        return;
      }
      let body: ChatRequestBody;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequestBody;
      } catch {
        sendError(res, 400, { message: 'We could not parse the JSON body of your request.', type: 'invalid_request_error', code: null });
        return;
      }
      const recorded: RecordedRequest = { method: req.method, path, query, wire: route.r.wire, ...(route.m?.[1] ? { deployment: route.m[1] } : {}), headers: req.headers, body };
      requests.push(recorded);
      for (const w of [...waiters]) {
        if (requests.length >= w.count) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
      }
      let script = queue.shift() ?? options.respond?.(recorded);
      while (typeof script === 'function') script = script(recorded);
      if (!script) {
        sendError(res, 500, { message: `fake-openai: no scripted response left for request ${requests.length}`, type: 'server_error', code: null });
        return;
      }
      if ('verbatim' in script) {
        res.writeHead(200, { 'Content-Type': 'text/event-stream' });
        res.end(script.verbatim);
        return;
      }
      if (route.r.wire === 'responses') respondOnResponsesWire(res, body, script, `fake${++serial}`);
      else respond(res, body, script, `chatcmpl-fake${++serial}`);
    });
  });

  /** Hangs and errors as on Chat Completions (the same error bodies); replies in Responses events. */
  function respondOnResponsesWire(res: http.ServerResponse, body: ChatRequestBody, script: Exclude<Script, ((r: RecordedRequest) => Script) | { verbatim: string }>, id: string): void {
    if ('hang' in script || 'status' in script || 'hugeError' in script || 'unterminatedEvent' in script) {
      respond(res, body, script, id);
      return;
    }
    if ('endless' in script) {
      sendError(res, 400, { message: 'fake-openai: endless streams are scripted for Chat Completions only.', type: 'invalid_request_error', code: null });
      return;
    }
    if ('responses' in script) {
      respondResponses(res, body, script.responses, id);
      return;
    }
    const reply: ResponsesReply = 'malformed' in script
      ? script
      : 'toolCalls' in script
        ? { text: script.text, toolCalls: script.toolCalls.map((c) => ({ name: c.name, id: c.id, arguments: argumentText(c), ...(c.namespace !== undefined ? { namespace: c.namespace } : {}) })), ...responsesUsage(script.usage) }
        : { text: script.text, pieces: script.pieces ?? 3, ...responsesUsage(script.usage) };
    respondResponses(res, body, reply, id);
  }

  function respond(res: http.ServerResponse, body: ChatRequestBody, script: Exclude<Script, ((r: RecordedRequest) => Script) | { verbatim: string }>, id: string): void {
    if ('responses' in script) {
      sendError(res, 400, { message: 'fake-openai: this reply was scripted for the Responses API.', type: 'invalid_request_error', code: null });
      return;
    }
    if ('hang' in script) {
      open.add(res);
      res.on('close', () => open.delete(res));
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.flushHeaders();
      return;
    }
    if ('endless' in script) {
      endless(res, body.model, id, script.endless);
      return;
    }
    if ('hugeError' in script) {
      hugeError(res, script.hugeError);
      return;
    }
    if ('unterminatedEvent' in script) {
      unterminatedEvent(res, script.unterminatedEvent.bytes);
      return;
    }
    if ('status' in script) {
      const d = ERROR_DEFAULTS[script.status] ?? { message: `HTTP ${script.status}`, type: 'server_error', code: null };
      const headers: Record<string, string> = script.status === 429 ? { 'retry-after': '0', 'retry-after-ms': '10', 'x-ratelimit-remaining-requests': '0' } : {};
      sendError(res, script.status, { message: script.message ?? d.message, type: d.type, code: script.code ?? d.code }, { ...headers, ...script.headers });
      return;
    }
    const model = body.model;
    const created = Math.floor(Date.now() / 1000);
    if (!body.stream) {
      if ('malformed' in script) {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end('{"id": "broken", "choices": [');
        return;
      }
      const toolCalls = 'toolCalls' in script ? script.toolCalls.map((c, i) => ({ id: c.id ?? `call_${id}_${i}`, type: 'function', function: { name: c.name, arguments: argumentText(c) } })) : undefined;
      const message = { role: 'assistant', content: 'toolCalls' in script ? (script.text ?? null) : script.text, refusal: null, ...(toolCalls ? { tool_calls: toolCalls } : {}) };
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({
        id, object: 'chat.completion', created, model, system_fingerprint: 'fp_fake',
        choices: [{ index: 0, message, logprobs: null, finish_reason: toolCalls ? 'tool_calls' : 'stop' }],
        usage: usage(script.usage),
      }));
      return;
    }

    const includeUsage = body.stream_options?.include_usage === true;
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) => {
      const c: Record<string, unknown> = { id, object: 'chat.completion.chunk', created, model, system_fingerprint: 'fp_fake', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] };
      if (includeUsage) c.usage = null;
      res.write(`data: ${JSON.stringify(c)}\n\n`);
    };

    if ('malformed' in script) {
      chunk({ role: 'assistant', content: '', refusal: null });
      if (script.malformed === 'badJson') {
        chunk({ content: 'Hel' });
        res.write('data: {"id": "chatcmpl-broken", "choices": [{"delta": {"content": "lo"\n\n');
      } else if (script.malformed === 'truncated') {
        chunk({ content: 'Hello, I was about to' });
      } else {
        chunk({ tool_calls: [{ index: 0, id: 'call_nameless', type: 'function', function: { arguments: '{}' } }] });
        chunk({}, 'tool_calls');
        res.write('data: [DONE]\n\n');
      }
      res.end();
      return;
    }

    if ('toolCalls' in script) {
      chunk({ role: 'assistant', content: script.text ?? null, refusal: null });
      script.toolCalls.forEach((c, index) => {
        chunk({ tool_calls: [{ index, id: c.id ?? `call_${id}_${index}`, type: 'function', function: { name: c.name, arguments: '' } }] });
        for (const piece of split(argumentText(c), 3)) chunk({ tool_calls: [{ index, function: { arguments: piece } }] });
      });
      chunk({}, 'tool_calls');
    } else {
      chunk({ role: 'assistant', content: '', refusal: null });
      for (const piece of split(script.text, script.pieces ?? 3)) chunk({ content: piece });
      chunk({}, 'stop');
    }
    if (includeUsage) res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, system_fingerprint: 'fp_fake', choices: [], usage: usage(script.usage) })}\n\n`);
    res.write('data: [DONE]\n\n');
    res.end();
  }

  /** Text chunks until the client goes away, paced or as fast as the socket drains. */
  function endless(res: http.ServerResponse, model: string, id: string, { text, everyMs }: { text: string; everyMs: number }): void {
    open.add(res);
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    const line = `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model, choices: [{ index: 0, delta: { content: text }, finish_reason: null }] })}\n\n`;
    let timer: NodeJS.Timeout | undefined;
    const pump = () => {
      if (res.destroyed) return;
      if (everyMs > 0) {
        res.write(line);
        timer = setTimeout(pump, everyMs);
        return;
      }
      while (!res.destroyed && res.write(line));
      res.once('drain', pump);
    };
    res.on('close', () => {
      clearTimeout(timer);
      open.delete(res);
    });
    pump();
  }

  function unterminatedEvent(res: http.ServerResponse, bytes: number): void {
    open.add(res);
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    res.write('data: {"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"');
    const chunk = Buffer.alloc(64 * 1024, 0x78);
    let sent = 0;
    const pump = () => {
      while (!res.destroyed && sent < bytes) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      if (!res.destroyed) res.end();
    };
    res.on('close', () => open.delete(res));
    pump();
  }

  function hugeError(res: http.ServerResponse, { status, bodyBytes }: { status: number; bodyBytes: number }): void {
    open.add(res);
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.write('{"error":{"message":"');
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    let sent = 0;
    const pump = () => {
      while (!res.destroyed && sent < bodyBytes) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      if (!res.destroyed) res.end('","type":"server_error","param":null,"code":null}}');
    };
    res.on('close', () => open.delete(res));
    pump();
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    azureEndpoint: `http://127.0.0.1:${port}/`,
    requests,
    enqueue: (...scripts) => queue.push(...scripts),
    waitForRequests(count, timeoutMs = 5000) {
      if (requests.length >= count) return Promise.resolve(requests);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`fake-openai: expected ${count} requests, got ${requests.length}`)), timeoutMs);
        waiters.push({ count, resolve: () => { clearTimeout(timer); resolve(requests); } });
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of open) res.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function sendError(res: http.ServerResponse, status: number, error: { message: string; type: string; code: string | null }, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json', 'x-request-id': `req_fake_${status}`, ...headers });
  res.end(JSON.stringify({ error: { message: error.message, type: error.type, param: null, code: error.code } }));
}

function argumentText(c: ScriptedToolCall): string {
  if (typeof c.arguments === 'string') return c.arguments;
  return JSON.stringify(c.arguments ?? {});
}

/** Splits text into `n` non-empty pieces (fewer when it is shorter). */
function split(text: string, n: number): string[] {
  if (text.length === 0) return [];
  const size = Math.max(1, Math.ceil(text.length / n));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** A scripted usage on the Responses wire (its field names), or nothing for the default. */
function responsesUsage(u: ScriptedUsage | undefined): { usage?: Record<string, unknown> } {
  if (!u) return {};
  const cached = u.cached === undefined ? 0 : u.cached;
  return { usage: { input_tokens: u.prompt, ...(cached === null ? {} : { input_tokens_details: { cached_tokens: cached } }), output_tokens: u.completion, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: u.prompt + u.completion } };
}

function usage({ prompt, completion, cached = 0 }: ScriptedUsage = { prompt: 42, completion: 7 }) {
  return {
    prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion,
    ...(cached === null ? {} : { prompt_tokens_details: { cached_tokens: cached, audio_tokens: 0 } }),
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}
