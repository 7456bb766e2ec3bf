/**
 * A linear-time regular-expression engine for JSON Schema `pattern` and `patternProperties`, given
 * to ajv as `code.regExp` on both sides of the wire. Schemas and the strings checked against them
 * can come from different parties (another extension's schema, a model's or a hostile peer's
 * argument), and JavaScript's backtracking engine takes exponential time on patterns such as
 * `^(a+)+$`; RE2 (here re2js, pure JavaScript, so it loads in VS Code's own Node runtime) never
 * backtracks. What RE2 cannot express (lookaround, backreferences) fails to compile, so a schema
 * using it is refused instead of being checked slowly.
 */
import type { RegExpEngine, RegExpLike } from 'ajv/dist/types';
import { RE2JS } from 're2js';

/** A compiled pattern and the size of its RE2 program (what compiling it cost, roughly). */
export interface LinearPattern extends RegExpLike {
  programSize: number;
}

/** Compiles an ECMAScript-syntax pattern with RE2; throws (naming the pattern) when RE2 cannot express it. */
export function compileLinearPattern(pattern: string): LinearPattern {
  let re: RE2JS;
  try {
    // translateRegExp maps ECMAScript spellings RE2 writes differently (\u{…}, (?<name>…)).
    re = RE2JS.compile(RE2JS.translateRegExp(pattern));
  } catch (e) {
    const why = e instanceof Error ? e.message.replace(/^error parsing regexp: /, '') : String(e);
    throw new SyntaxError(`pattern ${JSON.stringify(pattern.slice(0, 200))} is not supported (${why}); patterns run on RE2, which has no lookaround or backreferences`);
  }
  const compiled: LinearPattern = {
    test: (s: string) => re.test(s),
    programSize: re.programSize(),
  };
  // ajv keys its compiled patterns by this text; two patterns must never share a key.
  compiled.toString = () => `re2:${pattern}`;
  return compiled;
}

/** ajv's `code.regExp` option. The `u` flag ajv passes changes nothing: RE2 always reads Unicode. */
export const linearRegExp: RegExpEngine = Object.assign((pattern: string) => compileLinearPattern(pattern), {
  code: 'linearRegExp',
});
