/**
 * A rogue model endpoint answers the Select Model connection test (`GET /models`) with a body that
 * never ends and carries no content-length. The probe must stop reading at its cap instead of
 * holding the whole body in the extension host's memory until the timeout.
 */
import * as assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { probeModelEndpoint } from '../../src/vscode/backendProcess/endpointProbe';

/** Bytes the server may send before it stops on its own: far past the probe's 4 MB cap, short of hurting the test process. */
const SERVER_LIMIT = 512 * 1024 * 1024;

describe('rogue model endpoint', () => {
  it('T-EP-01 an endless chunked /models body is cut off at the cap: the probe answers and the server could send only a few MB', async () => {
    let sent = 0;
    let stopped = false;
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const server = http.createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"data":[');
      const pump = () => {
        while (!stopped && sent < SERVER_LIMIT && !res.destroyed) {
          sent += chunk.length;
          if (!res.write(chunk)) {
            res.once('drain', pump);
            return;
          }
        }
        res.end();
      };
      res.on('close', () => {
        stopped = true;
      });
      pump();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const probe = await probeModelEndpoint({ baseUrl: `http://127.0.0.1:${port}/v1`, model: 'm', timeoutMs: 60_000 });
      assert.deepEqual(probe, { reachable: true, modelListed: undefined });
      // What the probe read is capped at 4 MB; socket buffers on both sides add a few MB more.
      assert.ok(sent < 64 * 1024 * 1024, `the server sent ${(sent / 1024 / 1024).toFixed(0)} MB before the probe stopped reading`);
    } finally {
      stopped = true;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
