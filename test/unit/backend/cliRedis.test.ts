import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as net from 'node:net';
import * as path from 'node:path';
import { parseCli, USAGE } from '../../../src/backend/cli';
import { startRedis, type RedisServer } from '../../support/redisServer';

const ROOT = path.resolve(__dirname, '../../..');

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

describe('backend CLI process with --redis', () => {
  let redis: RedisServer;
  before(async () => {
    redis = await startRedis();
  });
  after(() => redis.stop());

  /** Runs the CLI (TypeScript through tsx) until it prints its ready line or exits; SIGTERMs it after the line. */
  function runCli(env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const child = spawn(process.execPath, ['-r', 'tsx/cjs', path.join(ROOT, 'src/backend/cli.ts'), '--offline'], {
      cwd: ROOT,
      env: { ...process.env, CLIENT_TOOLS_TOKEN: 'cli-redis-token-0123456789', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (stdout.includes('"listening"')) setTimeout(() => child.kill('SIGTERM'), 500);
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    return new Promise((resolve) =>
      child.once('exit', (code) => {
        clearTimeout(killer);
        resolve({ code, stdout, stderr });
      }),
    );
  }

  it('starts on Redis from CLIENT_TOOLS_REDIS_URL, saying where without the password, and exits 0 on SIGTERM', async function () {
    this.timeout(60_000);
    const url = redis.url.replace('redis://', 'redis://:pw-s3cret@');
    const run = await runCli({ CLIENT_TOOLS_REDIS_URL: url });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^\{"event":"listening","port":\d+\}\n$/);
    assert.match(run.stderr, /kept in Redis at redis:\/\/\*\*\*@127\.0\.0\.1:\d+/);
    assert.ok(!run.stderr.includes('pw-s3cret'), run.stderr);
  });

  it('exits 1 with the reason when Redis cannot be reached, and never prints the password', async function () {
    this.timeout(60_000);
    const port = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(free));
      });
    });
    const run = await runCli({ CLIENT_TOOLS_REDIS_URL: `redis://admin:pw-s3cret@127.0.0.1:${port}` });
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /could not start: Redis at redis:\/\/\*\*\*@127\.0\.0\.1:\d+ could not be reached: connect ECONNREFUSED/);
    assert.ok(!run.stderr.includes('pw-s3cret'), run.stderr);
  });
});
