/**
 * One backend test setup: the fake OpenAI endpoint, a backend whose model is the real `openai` SDK
 * pointed at it, and a scripted client that has completed its handshake.
 */
import type { Backend, BackendOptions, OpenAIModelConfig } from '../../src/backend';
import { createBackend } from '../../src/backend';
import type { Hello, RunEvent } from '../../src/protocol';
import { TestClient } from './backend-client';
import type { FakeOpenAI } from './fake-openai';
import { startFakeOpenAI } from './fake-openai';

export const TOKEN = 'harness-token-0123456789abcdef';
export const API_KEY = 'sk-test-very-secret-key-123';

export interface Harness {
  fake: FakeOpenAI;
  backend: Backend;
  client: TestClient;
  sessionId: string;
  /** The first client's resume secret (from its welcome): what a resume of `sessionId` must present. */
  resumeSecret: string | undefined;
  /** Every log line the backend wrote. */
  logs: string[];
  /** Every run event, as the library's `runEvent` listeners see them (also while no client is connected). */
  events: RunEvent[];
  /** Connects another client (or the same one again) to this backend. */
  connect(hello?: Partial<Hello>): Promise<TestClient>;
  close(): Promise<void>;
}

export async function harness(options: BackendOptions = {}, hello: Partial<Hello> = {}, modelOptions: { maxRetries?: number; api?: 'chat' | 'responses'; model?: string; vision?: OpenAIModelConfig['vision'] } = {}): Promise<Harness> {
  const fake = await startFakeOpenAI();
  const logs: string[] = [];
  const events: RunEvent[] = [];
  const backend = await createBackend({
    token: TOKEN,
    model: { baseURL: fake.baseURL, model: modelOptions.model ?? 'gpt-test', apiKey: API_KEY, maxRetries: modelOptions.maxRetries ?? 2, api: modelOptions.api, vision: modelOptions.vision },
    log: (level, message) => logs.push(`${level} ${message}`),
    ...options,
  });
  backend.on('runEvent', (e) => events.push(e));
  const clients: TestClient[] = [];
  const connect = async (h: Partial<Hello> = {}) => {
    const c = await TestClient.connect(backend.url, TOKEN);
    clients.push(c);
    await c.hello(h);
    return c;
  };
  const client = await connect(hello);
  const { sessionId, resumeSecret } = client.all('welcome')[0];
  return {
    fake,
    backend,
    client,
    sessionId,
    resumeSecret,
    logs,
    events,
    connect,
    async close() {
      await Promise.all(clients.map((c) => c.drop()));
      await backend.close();
      await fake.close();
    },
  };
}

/** The run event of `type` for `callId`, from the library's view. */
export function eventFor<T extends RunEvent['type']>(events: RunEvent[], type: T, callId: string): Extract<RunEvent, { type: T }> | undefined {
  return events.find((e): e is Extract<RunEvent, { type: T }> => e.type === type && 'callId' in e && e.callId === callId);
}

/** Waits until `check` passes (polling), or fails with the last error. */
export async function eventually(check: () => void, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      check();
      return;
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}
