import * as assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { probeModelEndpoint } from '../../../../src/vscode/backendProcess/endpointProbe';

/** A real loopback HTTP server answering GET /v1/models as told; records the Authorization header. */
async function fakeEndpoint(answer: (res: http.ServerResponse) => void): Promise<{ baseUrl: string; auth: (string | undefined)[]; close(): Promise<void> }> {
  const auth: (string | undefined)[] = [];
  const server = http.createServer((req, res) => {
    auth.push(req.headers.authorization);
    if (req.url !== '/v1/models') {
      res.writeHead(404).end();
      return;
    }
    answer(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // A test's server that never answered still holds its socket: close drops it.
  const close = () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); });
  const { port } = server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}/v1`, auth, close };
}

const json = (value: unknown) => (res: http.ServerResponse) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));

describe('model endpoint probe (Select Model connection test)', () => {
  it('a reachable endpoint that lists the model: reachable, listed, and the key sent as a bearer token', async () => {
    const ep = await fakeEndpoint(json({ object: 'list', data: [{ id: 'llama3.2' }, { id: 'qwen' }] }));
    try {
      assert.deepEqual(await probeModelEndpoint({ baseUrl: `${ep.baseUrl}/`, model: 'llama3.2', apiKey: 'sk-test' }), { reachable: true, modelListed: true });
      assert.deepEqual(ep.auth, ['Bearer sk-test']);
      assert.deepEqual(await probeModelEndpoint({ baseUrl: ep.baseUrl, model: 'gpt-4.1' }), { reachable: true, modelListed: false });
      assert.equal(ep.auth[1], undefined, 'no key, no header');
    } finally {
      await ep.close();
    }
  });

  it('a closed port is unreachable, with a reason a user can act on', async () => {
    const ep = await fakeEndpoint(json({}));
    await ep.close();
    const probe = await probeModelEndpoint({ baseUrl: ep.baseUrl, model: 'llama3.2' });
    assert.deepEqual(probe, { reachable: false, reason: `cannot reach ${ep.baseUrl}: connection refused (is the server running?)` });
  });

  it('a refused key (401) and a server error are not "reachable", and the key is not in the reason', async () => {
    const refused = await fakeEndpoint((res) => res.writeHead(401).end('{"error":"bad key sk-secret"}'));
    const broken = await fakeEndpoint((res) => res.writeHead(500).end());
    try {
      const probe = await probeModelEndpoint({ baseUrl: refused.baseUrl, model: 'm', apiKey: 'sk-secret' });
      assert.equal(probe.reachable, false);
      assert.match(probe.reachable ? '' : probe.reason, /refused the API key \(HTTP 401\); run Client Tools: Set API Key$/);
      assert.doesNotMatch(JSON.stringify(probe), /sk-secret/);
      assert.deepEqual(await probeModelEndpoint({ baseUrl: broken.baseUrl, model: 'm' }), { reachable: false, reason: `${broken.baseUrl} answered HTTP 500 to a request for its models` });
    } finally {
      await refused.close();
      await broken.close();
    }
  });

  it('an endpoint without a models route (404, 405) is reachable: it answered, it only lists no models', async () => {
    const chatOnly = await fakeEndpoint((res) => res.writeHead(404).end('{"error":{"message":"Unknown request URL: GET /v1/models."}}'));
    const noGet = await fakeEndpoint((res) => res.writeHead(405).end());
    try {
      assert.deepEqual(await probeModelEndpoint({ baseUrl: chatOnly.baseUrl, model: 'm' }), { reachable: true, modelListed: undefined });
      assert.deepEqual(await probeModelEndpoint({ baseUrl: noGet.baseUrl, model: 'm' }), { reachable: true, modelListed: undefined });
    } finally {
      await chatOnly.close();
      await noGet.close();
    }
  });

  it('an endpoint that never answers is unreachable after the time limit, not a hang', async () => {
    const silent = await fakeEndpoint(() => undefined);
    try {
      const probe = await probeModelEndpoint({ baseUrl: silent.baseUrl, model: 'm', timeoutMs: 1000 });
      assert.deepEqual(probe, { reachable: false, reason: `cannot reach ${silent.baseUrl}: no answer within 1 s` });
    } finally {
      await silent.close();
    }
  });
});
