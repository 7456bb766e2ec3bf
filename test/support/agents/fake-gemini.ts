/**
 * A fake Gemini API (generativelanguage v1beta) for Gemini CLI, on the real wire:
 * `POST /v1beta/models/<model>:streamGenerateContent?alt=sse` answered as SSE `data:` chunks of
 * `{candidates: [{content: {role: 'model', parts}, finishReason}], usageMetadata}` (text parts, or a
 * `functionCall` part); `:generateContent` (JSON side calls such as the model router, which asks for
 * `{complexity_reasoning, complexity_score}`) answered with a JSON text that fits the requested
 * schema; `:countTokens` answered `{totalTokens}`. Tool results come back as `functionResponse` parts.
 */
import type * as http from 'node:http';
import { listenLoopback, sendJson, startSse } from './http';
import { pieces, readJson, RequestLog, stepFor, textOf, type AgentStep, type FakeModel, type ModelRequest } from './script';

interface GeminiContent {
  role?: string;
  parts?: Record<string, unknown>[];
}

const ROUTE = /^\/v1(?:beta|alpha)?\/models\/([^/:]+):(streamGenerateContent|generateContent|countTokens)$/;

export async function startFakeGemini(initial: AgentStep[]): Promise<FakeModel> {
  let steps = initial;
  const requests = new RequestLog();

  const server = await listenLoopback((req, res) => void handle(req, res));

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const body = await readJson(req);
    const route = ROUTE.exec(url.pathname);
    if (req.method !== 'POST' || !route || body === undefined) {
      sendJson(res, body === undefined ? 400 : 404, { error: { code: 404, message: `fake-gemini: ${req.method} ${url.pathname}`, status: 'NOT_FOUND' } });
      return;
    }
    const method = route[2] as string;
    const recorded = read(url.pathname, method, body, req.headers);
    requests.add(recorded);
    const model = route[1] as string;
    if (method === 'countTokens') {
      sendJson(res, 200, { totalTokens: 1234 });
      return;
    }
    const usageMetadata = { promptTokenCount: 150, candidatesTokenCount: 25, totalTokenCount: 175 };
    if (method === 'generateContent') {
      const config = (body.generationConfig ?? {}) as Record<string, unknown>;
      const schema = config.responseJsonSchema ?? config.responseSchema;
      const text = schema !== undefined ? JSON.stringify(sampleOf(schema)) : 'Fake side answer';
      sendJson(res, 200, { candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 }], usageMetadata, modelVersion: model });
      return;
    }
    let parts: Record<string, unknown>[];
    try {
      parts = recorded.side ? [{ text: 'Fake side answer' }] : partsFor(stepFor(steps, recorded));
    } catch (e) {
      sendJson(res, 400, { error: { code: 400, message: (e as Error).message, status: 'INVALID_ARGUMENT' } });
      return;
    }
    const send = startSse(res);
    const chunks: Record<string, unknown>[][] = parts.length === 1 && typeof parts[0]?.text === 'string'
      ? pieces(parts[0].text as string).map((text) => [{ text }])
      : [parts];
    chunks.forEach((chunk, i) => {
      const last = i === chunks.length - 1;
      send({
        candidates: [{ content: { role: 'model', parts: chunk }, ...(last ? { finishReason: 'STOP' } : {}), index: 0 }],
        ...(last ? { usageMetadata } : {}),
        modelVersion: model,
      });
    });
    res.end();
  }

  return {
    baseUrl: `http://127.0.0.1:${server.port}`,
    requests,
    setSteps: (next) => (steps = next),
    close: () => server.close(),
  };
}

function partsFor(resolved: ReturnType<typeof stepFor>): Record<string, unknown>[] {
  const { step, toolName } = resolved;
  if (!('tool' in step)) return [{ text: step.text }];
  const call = { functionCall: { name: toolName, args: step.args } };
  return step.text ? [{ text: step.text }, call] : [call];
}

function read(path: string, method: string, body: Record<string, unknown>, headers: http.IncomingHttpHeaders): ModelRequest {
  const contents = Array.isArray(body.contents) ? body.contents as GeminiContent[] : [];
  const tools: string[] = [];
  for (const t of Array.isArray(body.tools) ? body.tools as { functionDeclarations?: { name?: unknown }[] }[] : []) {
    for (const d of t.functionDeclarations ?? []) tools.push(String(d.name));
  }
  const toolResults: string[] = [];
  for (const c of contents) {
    for (const part of c.parts ?? []) {
      const response = part.functionResponse as { response?: unknown } | undefined;
      if (response) toolResults.push(textOf(response.response));
    }
  }
  return {
    wire: 'gemini',
    path,
    body,
    headers,
    side: method !== 'streamGenerateContent' || tools.length === 0,
    replies: contents.filter((c) => c.role === 'model').length,
    toolResults,
    tools,
  };
}

/** A value that fits a JSON Schema (Gemini's or OpenAPI's spelling), for side calls that ask for JSON. */
function sampleOf(schema: unknown): unknown {
  const s = (schema ?? {}) as Record<string, unknown>;
  const type = String(s.type ?? 'object').toLowerCase();
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum.includes('user') ? 'user' : s.enum[0];
  if (type === 'object') {
    const props = (s.properties ?? {}) as Record<string, unknown>;
    return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, k === 'next_speaker' ? 'user' : sampleOf(v)]));
  }
  if (type === 'array') return [];
  if (type === 'number' || type === 'integer') return 1;
  if (type === 'boolean') return false;
  return 'fake';
}
