/**
 * A backend on a data folder of its own and the fake OpenAI endpoint, for tests that restart the
 * backend on the same folder (saved threads, compaction, rewind). Registers its mocha hooks; every
 * backend it started is closed after each test.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Backend, BackendOptions } from '../../src/backend';
import { createBackend } from '../../src/backend';
import { TestClient } from './backend-client';
import type { FakeOpenAI } from './fake-openai';
import { startFakeOpenAI } from './fake-openai';

export interface RestartableBackend {
  readonly fake: FakeOpenAI;
  readonly dir: string;
  /** Backends started in this test, closed after it (a test may push one it made itself). */
  readonly open: { backend: Backend; client: TestClient }[];
  /** A backend on the test's data folder, and a client connected to it. */
  start(): Promise<TestClient>;
  /** Closes the newest backend (its client first). */
  stop(): Promise<void>;
  /** Closes the newest backend and starts another on the same folder. */
  restart(): Promise<TestClient>;
}

export function restartableBackend(prefix: string, token: string, options: Partial<BackendOptions> = {}): RestartableBackend {
  let fake: FakeOpenAI;
  let dir: string;
  const open: { backend: Backend; client: TestClient }[] = [];
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    fake = await startFakeOpenAI();
  });
  afterEach(async () => {
    for (const o of open.splice(0)) {
      await o.client.drop();
      await o.backend.close();
    }
    await fake.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const start = async (): Promise<TestClient> => {
    const backend = await createBackend({ ...options, token, dataDir: path.join(dir, 'conversations'), model: { baseURL: fake.baseURL, model: 'gpt-test', apiKey: 'sk-test', maxRetries: 0 } });
    const { client } = await TestClient.open(backend.url, token);
    open.push({ backend, client });
    return client;
  };
  const stop = async (): Promise<void> => {
    const o = open.pop();
    if (!o) throw new Error('no backend is running');
    await o.client.drop();
    await o.backend.close();
  };
  return {
    get fake() {
      return fake;
    },
    get dir() {
      return dir;
    },
    open,
    start,
    stop,
    async restart() {
      await stop();
      return start();
    },
  };
}
