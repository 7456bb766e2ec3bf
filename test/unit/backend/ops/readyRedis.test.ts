import { strict as assert } from 'node:assert';
import type { Backend } from '../../../../src/backend';
import { createBackend } from '../../../../src/backend';
import { TestClient } from '../../../support/backend-client';
import { httpGet, sample } from '../../../support/ops-http';
import type { RedisServer } from '../../../support/redisServer';
import { startRedis } from '../../../support/redisServer';

const TOKEN = 'test-token-0123456789abcdef';

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('backend operations with --redis: readiness follows Redis, failures are counted', function () {
  this.timeout(60_000);
  let redis: RedisServer | undefined;
  let backend: Backend | undefined;
  const clients: TestClient[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.drop()));
    await backend?.close();
    backend = undefined;
    await redis?.stop();
    redis = undefined;
  });

  it('is ready while Redis answers, not ready (but alive) while it is down, and ready again when it is back', async () => {
    redis = await startRedis();
    const b = (backend = await createBackend({ token: TOKEN, redis: redis.url, opsPort: 0 }));
    assert.equal((await httpGet(b.port, '/readyz')).status, 200);

    await redis.stop();
    await until('readyz to turn 503', async () => (await httpGet(b.port, '/readyz')).status === 503);
    const down = await httpGet(b.opsPort!, '/readyz');
    assert.equal(down.body, 'not ready: shared state unreachable\n');
    assert.ok(!down.body.includes(String(redis.port)), 'the answer does not say where Redis is');
    assert.equal((await httpGet(b.port, '/healthz')).status, 200);
    // A message while Redis is down fails with a coded error; the metric counts the failed operations.
    const { client } = await TestClient.open(b.url, TOKEN).catch(() => ({ client: undefined }));
    if (client) clients.push(client);
    const errors = sample((await httpGet(b.opsPort!, '/metrics')).body, 'client_tools_state_errors_total', { code: 'STATE_UNAVAILABLE' });
    assert.ok(errors !== undefined && errors >= 1, `state errors counted: ${errors}`);

    await redis.restart();
    await until('readyz to turn 200 again', async () => (await httpGet(b.port, '/readyz')).status === 200);
  });
});
