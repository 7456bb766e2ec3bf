import { strict as assert } from 'node:assert';
import type { Backend } from '../../../../src/backend';
import { createBackend } from '../../../../src/backend';
import { TestClient } from '../../../support/backend-client';
import type { RedisServer } from '../../../support/redisServer';
import { startRedis } from '../../../support/redisServer';

const TOKEN = 'test-token-0123456789abcdef';
const SERVICE_RESTART = 1012;

describe('backend graceful drain with --redis: another replica resumes the session', function () {
  this.timeout(60_000);
  let redis: RedisServer | undefined;
  const backends: Backend[] = [];
  const clients: TestClient[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.drop()));
    await Promise.all(backends.splice(0).map((b) => b.close()));
    await redis?.stop();
    redis = undefined;
  });

  it('a session handed over by a draining replica is resumed, with its thread, by the other one', async () => {
    redis = await startRedis();
    const a = await createBackend({ token: TOKEN, redis: redis.url, replica: 'a' });
    const b = await createBackend({ token: TOKEN, redis: redis.url, replica: 'b' });
    backends.push(a, b);
    const { client, welcome } = await TestClient.open(a.url, TOKEN);
    clients.push(client);
    assert.equal((await client.run('t1', 'hello')).finished.reason, 'completed');

    const report = await a.drain(10_000);
    assert.equal((await client.closed).code, SERVICE_RESTART);
    assert.equal(report.handedOverIdle, 1);

    // What the extension does on any lost connection: the next URL (or the balancer), same resume.
    const again = await TestClient.connect(b.url, TOKEN);
    clients.push(again);
    const resumed = await again.hello({ resumeSession: welcome.sessionId, resumeSecret: welcome.resumeSecret });
    assert.equal(resumed.sessionId, welcome.sessionId);
    assert.equal(resumed.resumed, true);
    assert.equal((await again.run('t1', 'hello again')).finished.reason, 'completed');
  });
});
