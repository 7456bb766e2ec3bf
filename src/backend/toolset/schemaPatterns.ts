/**
 * The patterns of one registration (a `hello`, or one augmentation's injected groups), compiled with
 * RE2 once, under a budget. Matching on RE2 is linear, but compiling is linear in the size of the
 * program a pattern expands to, and counted repetition multiplies it (`[a-z]{1000}` is a thousand
 * instructions): without a budget, 128 KiB of such patterns would take the thread for seconds.
 * What compiling cost is counted even for a pattern that is then refused, so a flood of large
 * patterns stops costing anything once the registration's budget is spent.
 */
import type { RegExpEngine } from 'ajv/dist/types';
import { ErrorCode } from '../../protocol';
import { compileLinearPattern, type LinearPattern } from '../../base/linearRegExp';

export const PATTERN_LIMITS = {
  /** Characters in one pattern. */
  maxLength: 1000,
  /** RE2 program size of one schema's patterns together. */
  maxProgramPerSchema: 20_000,
  /** RE2 program size of one registration's patterns together. */
  maxProgramPerRegistration: 200_000,
} as const;

export type PatternCheck = { ok: true; programSize: number } | { ok: false; code: ErrorCode; reason: string };

export class PatternCache {
  private readonly compiled = new Map<string, LinearPattern>();
  private spent = 0;

  /** ajv's `code.regExp` for this registration's schemas: the patterns checked at registration are not compiled again. */
  readonly engine: RegExpEngine = Object.assign((pattern: string) => this.compiled.get(pattern) ?? compileLinearPattern(pattern), { code: 'linearRegExp' });

  /**
   * Compiles a pattern (once per registration) if the budget allows.
   * @param schemaSpent program size the schema's other patterns took
   */
  check(pattern: string, schemaSpent: number): PatternCheck {
    const shown = JSON.stringify(pattern.slice(0, 100)) + (pattern.length > 100 ? '…' : '');
    if (pattern.length > PATTERN_LIMITS.maxLength) return limit(`pattern ${shown} is ${pattern.length} characters long; the limit "pattern length" is ${PATTERN_LIMITS.maxLength}`);
    let compiled = this.compiled.get(pattern);
    if (!compiled) {
      if (this.spent >= PATTERN_LIMITS.maxProgramPerRegistration) return limit(registrationSpent());
      try {
        compiled = compileLinearPattern(pattern);
      } catch (e) {
        return { ok: false, code: ErrorCode.InvalidSchema, reason: (e as Error).message };
      }
      this.spent += compiled.programSize;
      if (this.spent > PATTERN_LIMITS.maxProgramPerRegistration) return limit(registrationSpent());
      this.compiled.set(pattern, compiled);
    }
    if (schemaSpent + compiled.programSize > PATTERN_LIMITS.maxProgramPerSchema) {
      return limit(`its patterns compile to more than ${PATTERN_LIMITS.maxProgramPerSchema} RE2 instructions (pattern ${shown} alone to ${compiled.programSize}); the limit "pattern size per schema" is ${PATTERN_LIMITS.maxProgramPerSchema}`);
    }
    return { ok: true, programSize: compiled.programSize };
  }
}

function registrationSpent(): string {
  return `the patterns of this registration compile to more than ${PATTERN_LIMITS.maxProgramPerRegistration} RE2 instructions; the limit "pattern size per message" is ${PATTERN_LIMITS.maxProgramPerRegistration}`;
}

function limit(reason: string): PatternCheck & { ok: false } {
  return { ok: false, code: ErrorCode.LimitExceeded, reason };
}
