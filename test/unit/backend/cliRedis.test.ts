import { strict as assert } from 'node:assert';
import { parseCli, USAGE } from '../../../src/backend/cli';

describe('backend CLI: --redis', () => {
  it('takes the URL from the flag, else from CLIENT_TOOLS_REDIS_URL, with the prefix and replica name; none without either', () => {
    assert.equal(parseCli(['--redis', 'redis://127.0.0.1:6379'], {}).options.redis, 'redis://127.0.0.1:6379');
    const fromEnv = parseCli(['--redis-prefix', 'team-a:', '--replica', 'r1'], { CLIENT_TOOLS_REDIS_URL: 'rediss://u:p@redis.internal:6380/2' }).options;
    assert.deepEqual([fromEnv.redis, fromEnv.redisPrefix, fromEnv.replica], ['rediss://u:p@redis.internal:6380/2', 'team-a:', 'r1']);
    assert.equal(parseCli([], {}).options.redis, undefined);
    assert.match(USAGE, /--redis <url>/);
    assert.match(USAGE, /CLIENT_TOOLS_REDIS_URL/);
  });

  it('refuses --redis with --data-dir, a prefix without Redis, and a URL that is not Redis without echoing it', () => {
    assert.throws(() => parseCli(['--redis', 'redis://127.0.0.1:6379', '--data-dir', 'x'], {}), /--redis and --data-dir cannot be used together/);
    assert.throws(() => parseCli(['--data-dir', 'x'], { CLIENT_TOOLS_REDIS_URL: 'redis://h:1' }), /--redis and --data-dir cannot be used together/);
    assert.throws(() => parseCli(['--redis-prefix', 'p:'], {}), /--redis-prefix needs --redis/);
    assert.throws(() => parseCli(['--redis', 'redis://h:1', '--redis-prefix', 'bad prefix{}'], {}), /--redis-prefix must be/);
    assert.throws(
      () => parseCli(['--redis', 'http://admin:hunter2@h:1'], {}),
      (e: unknown) => e instanceof Error && /--redis must be a redis:\/\/ or rediss:\/\/ URL/.test(e.message) && !e.message.includes('hunter2'),
    );
  });
});
