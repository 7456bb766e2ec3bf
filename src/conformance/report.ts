/**
 * What the conformance kit reports: one result per check, printed for people (✓/✗ per check and a
 * summary line) or as JSON for CI. The exit code is 0 only when no required check failed; a check
 * skipped with a reason (for example one that needs a model behaviour the peer does not have)
 * counts as neither pass nor failure, so it never turns a run green or red on its own.
 */

export type CheckStatus = 'pass' | 'fail' | 'skip';

export interface CheckResult {
  id: string;
  title: string;
  status: CheckStatus;
  /** False for advisory checks: their failure is reported but does not fail the run. */
  required: boolean;
  /** What the protocol asks for. */
  expected: string;
  /** What the peer did (or why the check was skipped). */
  actual: string;
  durationMs: number;
}

export interface Report {
  /** Which side the kit played: `backend` checks a backend, `extension` checks an extension. */
  target: 'backend' | 'extension';
  url: string;
  results: CheckResult[];
  summary: { passed: number; failed: number; skipped: number; requiredFailed: number };
  ok: boolean;
}

export function buildReport(target: Report['target'], url: string, results: CheckResult[]): Report {
  const count = (s: CheckStatus) => results.filter((r) => r.status === s).length;
  const requiredFailed = results.filter((r) => r.status === 'fail' && r.required).length;
  return {
    target,
    url,
    results,
    summary: { passed: count('pass'), failed: count('fail'), skipped: count('skip'), requiredFailed },
    ok: requiredFailed === 0,
  };
}

const MARK: Record<CheckStatus, string> = { pass: '✓', fail: '✗', skip: '-' };

export function formatText(report: Report): string {
  const lines = [`Client Tools conformance: ${report.target} at ${report.url}`, ''];
  for (const r of report.results) {
    const optional = r.required ? '' : ' (advisory)';
    lines.push(`${MARK[r.status]} ${r.id}  ${r.title}${optional}`);
    if (r.status === 'fail') {
      lines.push(`    expected: ${r.expected}`);
      lines.push(`    got:      ${r.actual}`);
    } else if (r.status === 'skip') {
      lines.push(`    skipped:  ${r.actual}`);
    } else {
      lines.push(`    saw:      ${r.actual}`);
    }
  }
  const { passed, failed, skipped, requiredFailed } = report.summary;
  lines.push('');
  lines.push(`${report.ok ? 'PASS' : 'FAIL'}: ${passed} passed, ${failed} failed (${requiredFailed} required), ${skipped} skipped, of ${report.results.length} checks`);
  return `${lines.join('\n')}\n`;
}

export function formatJson(report: Report): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
