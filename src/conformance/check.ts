/**
 * Running the kit's checks one after another. A check passes by returning what it saw, fails by
 * throwing (a `CheckFailed` says what came instead; anything else is reported with its message),
 * and is skipped by throwing `CheckSkipped` with the reason. Each check has its own deadline, so one
 * peer that never answers fails that check and the run goes on.
 */
import type { CheckResult } from './report';

export interface Check<Context> {
  id: string;
  title: string;
  /** What the protocol asks for, in a sentence, shown when the check fails. */
  expected: string;
  /** Advisory checks report a failure without failing the run (default: required). */
  advisory?: boolean;
  run(context: Context): Promise<string>;
}

export class CheckFailed extends Error {}
export class CheckSkipped extends Error {}

/** Fails the check with `actual` unless `condition` holds. */
export function verify(condition: unknown, actual: string): asserts condition {
  if (!condition) throw new CheckFailed(actual);
}

export function skip(reason: string): never {
  throw new CheckSkipped(reason);
}

/**
 * The checks `selection` names (`--check`): an id, or a prefix such as `limits` for every
 * `limits.*` check; all of them when the selection is empty. A name that selects nothing is a
 * usage error, so a typo never yields an empty green run.
 */
export function selectChecks<Context>(checks: readonly Check<Context>[], selection: readonly string[] | undefined): readonly Check<Context>[] {
  if (!selection || selection.length === 0) return checks;
  const matches = (id: string, name: string) => id === name || id.startsWith(`${name}.`);
  const unknown = selection.filter((name) => !checks.some((c) => matches(c.id, name)));
  if (unknown.length > 0) throw new UnknownCheck(`no check is named ${unknown.map((n) => `"${n}"`).join(', ')}; the checks are ${checks.map((c) => c.id).join(', ')}`);
  return checks.filter((c) => selection.some((name) => matches(c.id, name)));
}

export class UnknownCheck extends Error {}

/** Runs `checks` in order; `afterEach` tidies up between them (closing connections a check opened). */
export async function runChecks<Context>(checks: readonly Check<Context>[], context: Context, deadlineMs: number, afterEach?: () => Promise<void>): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const check of checks) {
    const started = Date.now();
    const base = { id: check.id, title: check.title, required: !check.advisory, expected: check.expected };
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new CheckFailed(`no outcome within ${deadlineMs} ms`)), deadlineMs);
    });
    try {
      const actual = await Promise.race([check.run(context), deadline]);
      results.push({ ...base, status: 'pass', actual, durationMs: Date.now() - started });
    } catch (e) {
      const status = e instanceof CheckSkipped ? 'skip' : 'fail';
      results.push({ ...base, status, actual: e instanceof Error ? e.message : String(e), durationMs: Date.now() - started });
    } finally {
      clearTimeout(timer);
      await afterEach?.();
    }
  }
  return results;
}
