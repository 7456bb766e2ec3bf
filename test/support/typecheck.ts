/**
 * Type-checks files with the project's compiler settings, some files' text replaced in memory: the
 * compile-fail tests (test/unit/protocol/exhaustive.test.ts, test/unit/protocol/chatMessages.test.ts)
 * prove that a change the compiler should refuse is refused, and where.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export const ROOT = path.resolve(__dirname, '../..');

/** The compiler settings of `tsconfig` (relative to the root), so the check is the one `npm run typecheck` makes. */
function projectOptions(tsconfig: string): ts.CompilerOptions {
  const file = path.join(ROOT, tsconfig);
  const config = ts.readConfigFile(file, ts.sys.readFile);
  return { ...ts.parseJsonConfigFileContent(config.config, ts.sys, path.dirname(file)).options, noEmit: true };
}

/** Type-checks `roots` with some files' text replaced in memory; the diagnostics by file (relative to the root). */
export function typecheck(roots: string[], replaced: ReadonlyMap<string, string>, tsconfig = 'tsconfig.json'): Map<string, ts.Diagnostic[]> {
  const options = projectOptions(tsconfig);
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    const text = replaced.get(path.resolve(fileName));
    return text !== undefined ? ts.createSourceFile(fileName, text, languageVersion, true) : getSourceFile(fileName, languageVersion, onError, shouldCreate);
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (fileName) => replaced.has(path.resolve(fileName)) || fileExists(fileName);
  const program = ts.createProgram({ rootNames: roots, options, host });
  const byFile = new Map<string, ts.Diagnostic[]>();
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const key = d.file ? path.relative(ROOT, d.file.fileName) : '(global)';
    byFile.set(key, [...(byFile.get(key) ?? []), d]);
  }
  return byFile;
}

export function describeAll(diagnostics: ts.Diagnostic[] | undefined): string {
  return (diagnostics ?? []).map((d) => `TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`).join('\n');
}

/** The line (1-based) of each diagnostic. */
export function lines(diagnostics: ts.Diagnostic[] | undefined): number[] {
  return (diagnostics ?? []).map((d) => d.file!.getLineAndCharacterOfPosition(d.start!).line + 1);
}

/** The line (1-based) of the first line of `file` that contains `needle`. */
export function lineOf(file: string, needle: string): number {
  const text = readFileSync(path.join(ROOT, file), 'utf8').split('\n');
  const i = text.findIndex((l) => l.includes(needle));
  if (i < 0) throw new Error(`${needle} not found in ${file}`);
  return i + 1;
}
