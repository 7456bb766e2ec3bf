/**
 * The reference backend under test in a process of its own: `createBackend` as the CLI builds it,
 * with a model configured (the `openai` SDK against the fuzzer's endpoint, Chat Completions or
 * Responses), the ops listener for `/healthz`, and a session grace of a millisecond so that what a
 * closed connection held is released within the case; `settled` resolves once every session ended
 * (the fuzzer measures the heap after it, not a second later).
 *
 *   argv: {"token": "...", "baseURL": "http://127.0.0.1:N/v1", "api": "chat" | "responses"}
 */
import { createBackend } from '../../../src/backend';
import { onRequest, ready } from '../support/hostAgent';

interface Options {
  token: string;
  baseURL: string;
  api: 'chat' | 'responses';
}

async function main(): Promise<void> {
  const o = JSON.parse(process.argv[2]) as Options;
  const backend = await createBackend({
    token: o.token,
    model: { baseURL: o.baseURL, model: 'gpt-4.1-mini', apiKey: 'sk-fuzz', maxRetries: 0, api: o.api, timeoutMs: 30_000 },
    opsPort: 0,
    sessionGraceMs: 1,
    maxConnections: 64,
    log: () => {},
  });
  const live = new Set<string>();
  backend.on('session', ({ sessionId }) => void live.add(sessionId));
  backend.on('sessionEnded', ({ sessionId }) => void live.delete(sessionId));
  onRequest('settled', async () => {
    const deadline = Date.now() + 5_000;
    while (live.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    return live.size;
  });
  ready({ url: backend.url, healthUrl: `http://127.0.0.1:${backend.opsPort}/healthz` }, () => backend.close());
}

void main();
