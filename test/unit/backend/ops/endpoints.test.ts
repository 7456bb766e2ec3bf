import { strict as assert } from 'node:assert';
import type { Backend, BackendOptions } from '../../../../src/backend';
import { createBackend } from '../../../../src/backend';
import { httpGet } from '../../../support/ops-http';

const TOKEN = 'test-token-0123456789abcdef';

describe('backend operations endpoints: /healthz, /readyz, /metrics', () => {
  let backend: Backend | undefined;
  afterEach(async () => {
    await backend?.close();
    backend = undefined;
  });
  async function start(options: BackendOptions = {}): Promise<Backend> {
    backend = await createBackend({ token: TOKEN, ...options });
    return backend;
  }

  it('answers /healthz and /readyz on the editors\' port without the token, with nothing but fixed words', async () => {
    const b = await start();
    const health = await httpGet(b.port, '/healthz');
    assert.equal(health.status, 200);
    assert.equal(health.body, 'ok\n');
    assert.equal(health.headers['cache-control'], 'no-store');
    const ready = await httpGet(b.port, '/readyz?verbose=1');
    assert.equal(ready.status, 200);
    assert.equal(ready.body, 'ready\n');
    // Anything else stays as before: this port speaks WebSocket.
    assert.equal((await httpGet(b.port, '/')).status, 426);
  });

  it('serves /metrics only on the ops port, never on the editors\' port', async () => {
    const b = await start({ opsPort: 0 });
    assert.ok(b.opsPort !== undefined && b.opsPort !== b.port);
    const onMain = await httpGet(b.port, '/metrics');
    assert.equal(onMain.status, 426);
    assert.ok(!onMain.body.includes('client_tools_'));
    const metrics = await httpGet(b.opsPort, '/metrics');
    assert.equal(metrics.status, 200);
    assert.match(String(metrics.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    assert.match(metrics.body, /^client_tools_sessions\{state="attached"\} 0$/m);
    assert.equal((await httpGet(b.opsPort, '/healthz')).body, 'ok\n');
    assert.equal((await httpGet(b.opsPort, '/readyz')).body, 'ready\n');
    assert.equal((await httpGet(b.opsPort, '/nothing')).status, 404);
    assert.equal((await httpGet(b.opsPort, '/metrics', {}, 'POST')).status, 405);
    const head = await httpGet(b.opsPort, '/metrics', {}, 'HEAD');
    assert.equal(head.status, 200);
    assert.equal(head.body, '');
  });

  it('refuses what a web page could send to the ops port: an Origin header, a DNS name as Host (rebinding)', async () => {
    const b = await start({ opsPort: 0 });
    const port = b.opsPort!;
    const fromPage = await httpGet(port, '/metrics', { Origin: 'https://evil.example' });
    assert.equal(fromPage.status, 403);
    assert.ok(!fromPage.body.includes('client_tools_'));
    assert.equal((await httpGet(port, '/metrics', { Origin: 'null' })).status, 403);
    assert.equal((await httpGet(port, '/metrics', { Host: `rebind.evil.example:${port}` })).status, 403);
    assert.equal((await httpGet(port, '/readyz', { Host: 'rebind.evil.example' })).status, 403);
    // Loopback names and IP addresses (a scraper on another machine) are fine.
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, `10.1.2.3:${port}`]) {
      assert.equal((await httpGet(port, '/metrics', { Host: host })).status, 200, host);
    }
  });

  it('is not ready while a readiness probe fails or hangs, and tells nothing of why', async () => {
    let failure: 'reject' | 'hang' | undefined = 'reject';
    const logged: string[] = [];
    const b = await start({
      opsPort: 0,
      readinessProbes: [() => (failure === 'reject' ? Promise.reject(new Error('connect ECONNREFUSED 10.9.9.9:6379 password=hunter2')) : failure === 'hang' ? new Promise<void>(() => {}) : Promise.resolve())],
      log: { info() {}, warn: (m) => logged.push(m), error() {} },
    });
    for (const port of [b.port, b.opsPort!]) {
      const r = await httpGet(port, '/readyz');
      assert.equal(r.status, 503);
      assert.equal(r.body, 'not ready: shared state unreachable\n');
    }
    assert.ok(logged.some((l) => l.includes('ECONNREFUSED')), 'the reason goes to the log');
    // Alive all the same: an orchestrator must not restart a replica because Redis is down.
    assert.equal((await httpGet(b.port, '/healthz')).status, 200);
    failure = 'hang';
    const hung = await httpGet(b.port, '/readyz');
    assert.equal(hung.status, 503);
    failure = undefined;
    assert.equal((await httpGet(b.port, '/readyz')).status, 200);
  });
});
