/**
 * The kit's report and check runner: required failures decide the outcome, advisory failures and
 * skips do not; a check that never settles fails at its deadline and the run goes on.
 */
import * as assert from 'node:assert/strict';
import type { Check } from '../../../src/conformance/check';
import { CheckFailed, runChecks, skip, verify } from '../../../src/conformance/check';
import type { CheckResult } from '../../../src/conformance/report';
import { buildReport, formatJson, formatText } from '../../../src/conformance/report';

function result(id: string, status: CheckResult['status'], required = true): CheckResult {
  return { id, title: `title of ${id}`, status, required, expected: `expected of ${id}`, actual: `actual of ${id}`, durationMs: 1 };
}

describe('conformance kit: report and check runner', () => {
  it('is ok only when no required check failed; advisory failures and skips do not count against it', () => {
    assert.equal(buildReport('backend', 'ws://x', [result('a', 'pass'), result('b', 'skip'), result('c', 'fail', false)]).ok, true);
    const failed = buildReport('backend', 'ws://x', [result('a', 'pass'), result('b', 'fail')]);
    assert.equal(failed.ok, false);
    assert.deepEqual(failed.summary, { passed: 1, failed: 1, skipped: 0, requiredFailed: 1 });
  });

  it('prints a mark per check, what was expected and what came for a failure, the reason for a skip, and a summary line', () => {
    const text = formatText(buildReport('backend', 'ws://x', [result('a', 'pass'), result('b', 'fail'), result('c', 'skip'), result('d', 'fail', false)]));
    assert.match(text, /^✓ a {2}title of a\n {4}saw: {6}actual of a$/m);
    assert.match(text, /^✗ b {2}title of b\n {4}expected: expected of b\n {4}got: {6}actual of b$/m);
    assert.match(text, /^- c {2}title of c\n {4}skipped: {2}actual of c$/m);
    assert.match(text, /^✗ d {2}title of d \(advisory\)$/m);
    assert.match(text, /^FAIL: 1 passed, 2 failed \(1 required\), 1 skipped, of 4 checks$/m);
    assert.deepEqual(JSON.parse(formatJson(buildReport('extension', 'ws://y', [result('a', 'pass')]))).summary, { passed: 1, failed: 0, skipped: 0, requiredFailed: 0 });
  });

  it('runs every check in order: a pass returns what it saw, a throw fails, a skip says why, a hang fails at its deadline', async () => {
    const order: string[] = [];
    const check = (id: string, run: () => Promise<string>, advisory = false): Check<null> => ({ id, title: id, expected: 'e', advisory, run: () => (order.push(id), run()) });
    const results = await runChecks(
      [
        check('passes', async () => 'saw it'),
        check('verify fails', async () => {
          verify(false, 'came wrong');
          return '';
        }),
        check('throws', async () => {
          throw new Error('boom');
        }),
        check('skips', async () => skip('no model')),
        check('hangs', () => new Promise<string>(() => undefined)),
        check('advisory', async () => {
          throw new CheckFailed('over the cap');
        }, true),
      ],
      null,
      1_000,
      async () => {
        order.push('tidy');
      },
    );
    assert.deepEqual(order, ['passes', 'tidy', 'verify fails', 'tidy', 'throws', 'tidy', 'skips', 'tidy', 'hangs', 'tidy', 'advisory', 'tidy']);
    assert.deepEqual(results.map((r) => [r.id, r.status, r.actual, r.required]), [
      ['passes', 'pass', 'saw it', true],
      ['verify fails', 'fail', 'came wrong', true],
      ['throws', 'fail', 'boom', true],
      ['skips', 'skip', 'no model', true],
      ['hangs', 'fail', 'no outcome within 1000 ms', true],
      ['advisory', 'fail', 'over the cap', false],
    ]);
  });
});
