import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');

/**
 * In a fresh process (this one has the tables loaded by other tests): a backend with the offline
 * demo model starts, takes a client and answers a chat turn with a tool call without loading the
 * tokenizer's tables; the first count loads them.
 */
const SCRIPT = `
const { createBackend } = require('./src/backend');
const { TestClient } = require('./test/support/backend-client');
const { countTokens } = require('./src/backend/context/tokens');
const loaded = () => Object.keys(require.cache).some((f) => f.includes('o200k_base'));
(async () => {
  const backend = await createBackend({ token: 'lazy-token-0123456789abcdef', log: () => {} });
  const atStart = loaded();
  const client = await TestClient.connect(backend.url, 'lazy-token-0123456789abcdef');
  await client.hello();
  client.autoAnswer(() => ({ success: true, content: [{ type: 'text', text: 'const a = 1;' }] }));
  const { finished } = await client.run('t1', 'open src/a.ts', 20000);
  const afterTurn = loaded();
  countTokens('hello world');
  console.log(JSON.stringify({ atStart, afterTurn, reason: finished.reason, afterCount: loaded() }));
  await client.drop();
  await backend.close();
})().catch((e) => { console.error(e); process.exit(1); });
`;

describe('tokenizer tables loaded on first use', () => {
  it('a backend with the offline demo model starts and runs a turn without them; the first count loads them', async () => {
    const out = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, ['--require', 'tsx/cjs', '-e', SCRIPT], { cwd: ROOT, timeout: 60_000 }, (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)));
    });
    assert.deepEqual(JSON.parse(out.trim().split('\n').pop()!), { atStart: false, afterTurn: false, reason: 'completed', afterCount: true });
  });
});
