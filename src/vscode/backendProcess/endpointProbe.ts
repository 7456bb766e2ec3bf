/**
 * The "connection test" of a model endpoint: one `GET <baseUrl>/models`, the route every
 * OpenAI-compatible server (OpenAI, Ollama, LM Studio, vLLM) answers. It tells a new user at once
 * that the endpoint is down or refuses the key, instead of a green "Connected" and a first message
 * that fails. The key goes only into the request's header, never into the answer or a log.
 */

export type EndpointProbe =
  | { reachable: true; /** Whether the list of models names the configured one; undefined when the answer had no list. */ modelListed: boolean | undefined }
  | { reachable: false; /** One sentence for the chat header and the notification. */ reason: string };

export interface ProbeOptions {
  baseUrl: string;
  model: string;
  apiKey?: string;
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;
/** A model list larger than this is not read: the answer is enough to know the endpoint is up. */
const MAX_LIST_BYTES = 4 * 1024 * 1024;

export async function probeModelEndpoint(options: ProbeOptions): Promise<EndpointProbe> {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/models`;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  let response: Response;
  try {
    response = await fetch(url, {
      headers: options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {},
      // A redirect could carry the key elsewhere; an API endpoint has no reason to send one.
      redirect: 'error',
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (e) {
    return { reachable: false, reason: `cannot reach ${options.baseUrl}: ${networkReason(e, timeoutMs)}` };
  }
  if (response.status === 401 || response.status === 403) {
    void response.body?.cancel();
    return { reachable: false, reason: `${options.baseUrl} refused the API key (HTTP ${response.status}); run Client Tools: Set API Key` };
  }
  if (response.status === 404 || response.status === 405) {
    // It answered: the server is up and took the key; it just does not list models (some proxies and
    // compatible servers serve chat completions only). Not a reason to say "unreachable".
    void response.body?.cancel();
    return { reachable: true, modelListed: undefined };
  }
  if (!response.ok) {
    void response.body?.cancel();
    return { reachable: false, reason: `${options.baseUrl} answered HTTP ${response.status} to a request for its models` };
  }
  return { reachable: true, modelListed: await modelListed(response, options.model) };
}

async function modelListed(response: Response, model: string): Promise<boolean | undefined> {
  const text = await boundedText(response, MAX_LIST_BYTES);
  if (text === undefined) return undefined;
  try {
    const body: unknown = JSON.parse(text);
    const data = body && typeof body === 'object' ? (body as { data?: unknown }).data : undefined;
    if (!Array.isArray(data)) return undefined;
    return data.some((m) => m && typeof m === 'object' && (m as { id?: unknown }).id === model);
  } catch {
    return undefined;
  }
}

/**
 * The body as text, or undefined past `maxBytes` or when it breaks off. Read chunk by chunk: a body
 * without a content-length (chunked, or a lying server) would otherwise be read whole into memory
 * by `response.text()`, however large it grows before the timeout.
 */
async function boundedText(response: Response, maxBytes: number): Promise<string | undefined> {
  if (Number(response.headers.get('content-length') ?? 0) > maxBytes || !response.body) {
    void response.body?.cancel();
    return undefined;
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        void reader.cancel();
        return undefined;
      }
      chunks.push(value);
    }
  } catch {
    return undefined;
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** fetch's "fetch failed" hides the reason in `cause` (ECONNREFUSED, ENOTFOUND, a timeout). */
function networkReason(e: unknown, timeoutMs: number): string {
  const error = e as { name?: string; cause?: { code?: string; message?: string } };
  if (error?.name === 'TimeoutError') return `no answer within ${Math.round(timeoutMs / 1000)} s`;
  const code = error?.cause?.code;
  if (code === 'ECONNREFUSED') return 'connection refused (is the server running?)';
  if (code === 'ENOTFOUND') return 'host not found';
  return code ?? error?.cause?.message ?? (e instanceof Error ? e.message : String(e));
}
