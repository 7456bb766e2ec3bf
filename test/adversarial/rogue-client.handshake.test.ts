/**
 * A rogue client (a web page, a DNS-rebinding attacker, a local process without the token) tries
 * to get past the real backend's upgrade checks. Every refusal is an HTTP status before the
 * upgrade, read through ws's 'unexpected-response'; no session is ever created for it; the token
 * never reaches a log.
 *
 * The plain cases (no token, a wrong token, one Origin, one foreign Host, the connection cap) are in
 * test/unit/backend/transport/server.test.ts; here are the variants an attacker would actually try.
 */
import * as assert from 'node:assert/strict';
import { TOKEN_HEADER } from '../../src/protocol';
import { upgradeStatus } from '../support/backend-client';
import { startBackend, TOKEN, type BackendRig } from './support/backend-rig';
import { rawUpgrade, upgradeHeaders } from './support/raw-ws';

describe('rogue client: handshake', () => {
  let rig: BackendRig;
  let sessions: number;

  beforeEach(async () => {
    rig = await startBackend();
    sessions = 0;
    rig.backend.on('session', () => sessions++);
  });
  afterEach(async () => {
    assert.equal(sessions, 0, 'a refused request got a session');
    await rig.assertAlive();
    await rig.close();
  });

  const url = () => rig.backend.url;
  const port = () => rig.backend.port;
  const withToken = (headers: Record<string, string> = {}) => ({ [TOKEN_HEADER]: TOKEN, ...headers });

  it('T-HS-01 any browser Origin gets 403, even the backend\'s own origin, a webview\'s, "null" or file://, with the right token', async () => {
    for (const origin of ['https://evil.example', `http://127.0.0.1:${port()}`, `http://localhost:${port()}`, 'null', 'file://', 'vscode-webview://abc123', 'chrome-extension://abcdef']) {
      assert.equal(await upgradeStatus(url(), withToken({ Origin: origin })), 403, origin);
    }
  });

  it('T-HS-02 a foreign or look-alike Host (DNS rebinding) gets 403 with the right token', async () => {
    const hosts = [
      'evil.example', `evil.example:${port()}`, `127.0.0.1.evil.example:${port()}`, `localhost.evil.example:${port()}`,
      `127.0.0.2:${port()}`, `0.0.0.0:${port()}`, `localhost.:${port()}`, `[::ffff:127.0.0.1]:${port()}`, `user@127.0.0.1:${port()}`, `127.0.0.1:${port()}/evil`,
    ];
    for (const host of hosts) assert.equal(await upgradeStatus(url(), withToken({ Host: host })), 403, host);
  });

  it('T-HS-03 a request without any Host header gets 403', async () => {
    const headers = upgradeHeaders(port(), TOKEN).filter((h) => !h.startsWith('Host:'));
    const r = await rawUpgrade(port(), headers);
    assert.equal(r.status, 403);
    await r.ended;
  });

  it('T-HS-04 no token, an empty one, a wrong one of any length or case, or the token outside its header gets 401', async () => {
    const cases: Record<string, string>[] = [
      {},
      { [TOKEN_HEADER]: '' },
      { [TOKEN_HEADER]: 'x' },
      { [TOKEN_HEADER]: TOKEN.slice(0, -1) },
      { [TOKEN_HEADER]: `${TOKEN}x` },
      { [TOKEN_HEADER]: TOKEN.replace(/.$/, 'X') },
      { [TOKEN_HEADER]: TOKEN.toUpperCase() },
      { [TOKEN_HEADER]: 'A'.repeat(10_000) },
      { Authorization: `Bearer ${TOKEN}` },
      { Cookie: `${TOKEN_HEADER}=${TOKEN}` },
      { [`${TOKEN_HEADER}-x`]: TOKEN },
    ];
    for (const headers of cases) assert.equal(await upgradeStatus(url(), headers), 401, JSON.stringify(headers).slice(0, 80));
    assert.equal(await upgradeStatus(`${url()}/?token=${TOKEN}&${TOKEN_HEADER}=${TOKEN}`, {}), 401, 'token in the query string');
  });

  it('T-HS-05 the token header twice (joined by the HTTP parser) gets 401', async () => {
    const r = await rawUpgrade(port(), [...upgradeHeaders(port(), TOKEN), `${TOKEN_HEADER}: ${TOKEN}`]);
    assert.equal(r.status, 401);
  });

  it('T-HS-06 a browser is refused before its token is even looked at: Origin or a foreign Host without a token still gets 403, not 401', async () => {
    assert.equal(await upgradeStatus(url(), { Origin: 'https://evil.example' }), 403);
    assert.equal(await upgradeStatus(url(), { Host: 'evil.example' }), 403);
    assert.equal(await upgradeStatus(url(), { Origin: 'https://evil.example', [TOKEN_HEADER]: 'wrong' }), 403);
  });

  it('T-HS-07 a refusal is a plain HTTP answer that closes the connection: no Sec-WebSocket-Accept, nothing after it', async () => {
    const r = await rawUpgrade(port(), upgradeHeaders(port(), 'wrong-token-wrong-token'));
    assert.equal(r.status, 401);
    assert.equal(r.headers['sec-websocket-accept'], undefined);
    assert.equal(r.headers.connection?.toLowerCase(), 'close');
    await r.ended;
    assert.equal(r.parser.frames.length, 0);
  });

  it('T-HS-08 plain HTTP requests get 426 and never a session; malformed upgrades (no key, a wrong version) get 400', async () => {
    const get = await rawUpgrade(port(), [`Host: 127.0.0.1:${port()}`, 'Connection: close'], { key: false });
    assert.equal(get.status, 426);
    const noKey = await rawUpgrade(port(), upgradeHeaders(port(), TOKEN), { key: false });
    assert.equal(noKey.status, 400);
    const badVersion = await rawUpgrade(port(), upgradeHeaders(port(), TOKEN).map((h) => (h.startsWith('Sec-WebSocket-Version') ? 'Sec-WebSocket-Version: 7' : h)));
    assert.equal(badVersion.status, 400);
  });

  it('T-HS-09 after a hundred refused attempts the token appears in no log line, nor does any guessed token', async () => {
    const guesses = Array.from({ length: 100 }, (_, i) => `guess-${i}-${'g'.repeat(20)}`);
    for (const g of guesses) assert.equal(await upgradeStatus(url(), { [TOKEN_HEADER]: g }), 401);
    assert.equal(await upgradeStatus(url(), withToken({ Origin: 'https://evil.example' })), 403);
    const all = rig.logs.join('\n');
    assert.ok(rig.logs.filter((l) => /refused a connection/.test(l)).length >= 101, 'refusals are logged');
    assert.ok(!all.includes(TOKEN), 'the token is in the log');
    assert.ok(!guesses.some((g) => all.includes(g)), 'a guessed token is in the log');
  });
});
