import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../../../..');

/**
 * In a fresh process (this one has ioredis loaded by other tests): a backend without Redis (the
 * extension's bundled one) starts and takes a client without loading ioredis; connecting to Redis
 * loads it.
 */
const SCRIPT = `
const { createBackend } = require('./src/backend');
const { TestClient } = require('./test/support/backend-client');
const { connectRedis } = require('./src/backend/state/redisConnection');
const loaded = () => Object.keys(require.cache).some((f) => f.includes('/node_modules/ioredis/'));
(async () => {
  const backend = await createBackend({ token: 'lazy-token-0123456789abcdef', log: () => {} });
  const atStart = loaded();
  const client = await TestClient.connect(backend.url, 'lazy-token-0123456789abcdef');
  await client.hello();
  const afterHello = loaded();
  // Nothing listens on port 1: the connection fails, after ioredis was loaded to try it.
  await connectRedis({ url: 'redis://127.0.0.1:1', connectTimeoutMs: 500 }).then(() => { throw new Error('connected to port 1'); }, () => undefined);
  console.log(JSON.stringify({ atStart, afterHello, afterConnect: loaded() }));
  await client.drop();
  await backend.close();
})().catch((e) => { console.error(e); process.exit(1); });
`;

describe('ioredis loaded only by a backend that uses Redis', () => {
  it('a backend without Redis starts and greets a client without it; connecting to Redis loads it', async () => {
    const out = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, ['--require', 'tsx/cjs', '-e', SCRIPT], { cwd: ROOT, timeout: 60_000 }, (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)));
    });
    assert.deepEqual(JSON.parse(out.trim().split('\n').pop()!), { atStart: false, afterHello: false, afterConnect: true });
  });
});
