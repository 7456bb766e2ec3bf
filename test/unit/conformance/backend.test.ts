/**
 * The conformance kit against backends: the project's own (real server on loopback, offline demo
 * model) passes every check; deliberately broken ones fail exactly the checks for what they break,
 * and a backend whose model calls no tools gets the model-dependent checks skipped with a reason.
 */
import * as assert from 'node:assert/strict';
import type { Backend } from '../../../src/backend';
import { createBackend } from '../../../src/backend';
import { BACKEND_CHECKS, checkBackend } from '../../../src/conformance/backend';
import type { Report } from '../../../src/conformance/report';
import type { BrokenBackend, Faults } from './brokenBackend';
import { startBrokenBackend } from './brokenBackend';

const WAIT_MS = 10_000;

function statusOf(report: Report, id: string): string {
  const result = report.results.find((r) => r.id === id);
  assert.ok(result, `no result for ${id}`);
  return result.status;
}

function failures(report: Report): string {
  return report.results.filter((r) => r.status !== 'pass').map((r) => `${r.id} ${r.status}: ${r.actual}`).join('\n');
}

describe('conformance kit: backend mode', function () {
  this.timeout(120_000);

  describe('against the project\'s backend (offline demo model)', () => {
    let backend: Backend;
    let report: Report;

    before(async () => {
      backend = await createBackend({ token: 'conformance-test-token-0123456789', model: 'offline', log: () => undefined });
      report = await checkBackend({ url: backend.url, token: backend.token, originCheck: false, prompt: 'read conformance.png', waitMs: WAIT_MS });
    });

    after(() => backend.close());

    it('passes every check, advisory ones included, and the run is ok', () => {
      assert.equal(failures(report), '');
      assert.equal(report.results.length, BACKEND_CHECKS.length);
      assert.deepEqual(report.summary, { passed: BACKEND_CHECKS.length, failed: 0, skipped: 0, requiredFailed: 0 });
      assert.equal(report.ok, true);
    });

    it('covers handshake, auth refusals, expansion, binary both ways, errors, cancel, resume and limits', () => {
      const ids = report.results.map((r) => r.id);
      for (const id of ['auth.subprotocol', 'auth.no-token', 'auth.wrong-token', 'auth.origin', 'auth.host', 'auth.order', 'handshake.welcome', 'handshake.decode-before-hello', 'handshake.protocol-mismatch', 'registration.error-ids', 'decode.invalid-message', 'decode.bad-base64', 'decode.invalid-utf8', 'decode.binary-utf8', 'decode.attachment-not-integer', 'tools.expansion', 'tools.binary-frame', 'tools.inline-base64', 'tools.cancel', 'tools.resume-pending', 'tools.refused', 'steer.tool-boundary', 'context.compact-now', 'thread.truncate', 'session.resume', 'limits.message-too-large', 'limits.hello-max-message', 'limits.hello-max-json', 'limits.tools', 'limits.groups', 'schema.every-message']) {
        assert.ok(ids.includes(id), `missing ${id}`);
      }
      assert.match(report.results.find((r) => r.id === 'schema.every-message')!.actual, /[1-9]\d* of them binary frames/);
      const steer = report.results.find((r) => r.id === 'steer.tool-boundary')!;
      assert.equal(steer.status, 'pass', steer.actual);
      assert.match(steer.actual, /delivered after the call's toolCallEnded; a steer for the finished run: NOT_RUNNING/);
      const compact = report.results.find((r) => r.id === 'context.compact-now')!;
      assert.equal(compact.status, 'pass', compact.actual);
      const truncate = report.results.find((r) => r.id === 'thread.truncate')!;
      assert.equal(truncate.status, 'pass', truncate.actual);
    });
  });

  describe('against broken backends', () => {
    const opened: BrokenBackend[] = [];
    /** Accepts any token, answers what it cannot use with INTERNAL, and its model never calls a tool. */
    let careless: Report;
    let noSubprotocol: Report;

    async function check(faults: Faults): Promise<Report> {
      const broken = await startBrokenBackend(faults);
      opened.push(broken);
      return checkBackend({ url: broken.url, token: broken.token, originCheck: false, prompt: 'read conformance.png', waitMs: 3_000 });
    }

    before(async () => {
      careless = await check({ acceptsAnyToken: true, wrongCodes: true });
      noSubprotocol = await check({ noSubprotocol: true });
    });

    after(() => Promise.all(opened.map((b) => b.close())));

    it('fails the token checks of a backend that accepts any token, and the run', () => {
      assert.equal(statusOf(careless, 'auth.no-token'), 'fail');
      assert.equal(statusOf(careless, 'auth.wrong-token'), 'fail');
      assert.match(careless.results.find((r) => r.id === 'auth.no-token')!.actual, /upgrade succeeded/);
      assert.equal(statusOf(careless, 'auth.subprotocol'), 'pass');
      assert.equal(statusOf(careless, 'handshake.welcome'), 'pass');
      assert.equal(careless.ok, false);
    });

    it('fails the decoding, handshake and session checks of a backend that answers with the wrong codes', () => {
      for (const id of ['handshake.not-ready', 'handshake.protocol-mismatch', 'decode.parse-error', 'decode.unknown-type', 'decode.invalid-message', 'decode.bad-base64', 'decode.short-binary-frame', 'decode.unknown-request', 'session.resume']) {
        assert.equal(statusOf(careless, id), 'fail', id);
      }
      assert.match(careless.results.find((r) => r.id === 'decode.parse-error')!.actual, /INTERNAL/);
      assert.ok(careless.summary.requiredFailed >= 11);
    });

    it('skips the model-dependent checks, with the reason, when the model calls no tool', () => {
      for (const id of ['tools.expansion', 'tools.binary-frame', 'tools.inline-base64', 'tools.text-json', 'tools.failure', 'tools.cancel', 'tools.resume-pending']) {
        assert.equal(statusOf(careless, id), 'skip', id);
      }
      assert.match(careless.results.find((r) => r.id === 'tools.expansion')!.actual, /made no tool call for "read conformance.png" \(it said: "I do not use tools\."\)/);
      assert.match(careless.results.find((r) => r.id === 'tools.cancel')!.actual, /made no tool call/);
    });

    it('skips the optional truncateThread check of a backend that does not announce it', () => {
      assert.equal(statusOf(careless, 'thread.truncate'), 'skip');
      assert.match(careless.results.find((r) => r.id === 'thread.truncate')!.actual, /does not list truncateThread in welcome.capabilities/);
    });

    it('fails each rule the protocol pinned in round 3 on a backend that breaks just that rule, and passes the others', async () => {
      const run = async (faults: Faults, checks: string[]) => {
        const broken = await startBrokenBackend(faults);
        opened.push(broken);
        const report = await checkBackend({ url: broken.url, token: broken.token, originCheck: false, prompt: 'read conformance.png', waitMs: 3_000, checks });
        return (id: string) => report.results.find((r) => r.id === id)!;
      };
      const reads = await run({ readsFile: true }, ['tools.expansion', 'tools.refused', 'limits.hello-max-message', 'limits.hello-max-json']);
      assert.deepEqual(['tools.expansion', 'tools.refused'].map((id) => reads(id).status), ['pass', 'pass']);
      assert.match(reads('tools.refused').actual, /sent \(executor client\) and refused by the kit/);
      assert.equal(reads('limits.hello-max-message').status, 'fail', 'it echoes a 100,000-character result to a hello that announced 65,536 bytes');
      assert.match(reads('limits.hello-max-message').actual, /a message of \d+ bytes came \(toolCallEnded\)/);
      assert.equal(reads('limits.hello-max-json').status, 'fail', 'it echoes a 100,000-character result to a hello that announced 65,536 bytes of JSON');
      assert.match(reads('limits.hello-max-json').actual, /a message with \d+ bytes of JSON came \(toolCallEnded\)/);

      const refuses = await run({ readsFile: true, refusesAsClient: true }, ['tools.refused']);
      assert.equal(refuses('tools.refused').status, 'fail');
      assert.match(refuses('tools.refused').actual, /announced it with executor client/);

      const late = await run({ readsFile: true, stateAfterRequest: true }, ['tools.expansion']);
      assert.equal(late('tools.expansion').status, 'fail');
      assert.match(late('tools.expansion').actual, /not toolCallStarted, groupExpanded, toolCallEnded, toolGroupState of the thread/);

      const unnamed = await run({ unnamedRegistrationErrors: true }, ['registration.error-ids']);
      assert.equal(unnamed('registration.error-ids').status, 'fail');
      assert.match(unnamed('registration.error-ids').actual, /group absent, tool absent/);

      const keeps = await run({ keepsInvalidUtf8: true }, ['decode.invalid-utf8']);
      assert.equal(keeps('decode.invalid-utf8').status, 'fail');
      assert.match(keeps('decode.invalid-utf8').actual, /the connection stayed open \(last: error\)/);

      const plain = await run({ servesPlainHttp: true }, ['auth.order']);
      assert.equal(plain('auth.order').status, 'fail');
      assert.match(plain('auth.order').actual, /a GET without Upgrade: HTTP 200 \(expected HTTP 426\)/);
    });

    it('fails the new decoding checks of a backend that answers with the wrong codes, and skips the new model checks when the model calls no tool', () => {
      for (const id of ['handshake.decode-before-hello', 'decode.binary-utf8', 'decode.attachment-not-integer', 'registration.error-ids']) assert.equal(statusOf(careless, id), 'fail', id);
      for (const id of ['tools.refused', 'limits.hello-max-message', 'limits.hello-max-json']) assert.equal(statusOf(careless, id), 'skip', id);
    });

    it('fails the subprotocol check of a backend that selects none', () => {
      assert.equal(statusOf(noSubprotocol, 'auth.subprotocol'), 'fail');
      assert.match(noSubprotocol.results.find((r) => r.id === 'auth.subprotocol')!.actual, /no subprotocol/i);
      assert.equal(statusOf(noSubprotocol, 'auth.no-token'), 'pass');
      assert.equal(noSubprotocol.ok, false);
    });
  });
});
