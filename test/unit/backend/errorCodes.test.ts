/**
 * Every error code the backend uses is the protocol's (`ErrorCode`) or one of its documented
 * internal codes (`InternalCode`, never sent): a code made up on the spot in a `'SOME_CODE'`
 * literal fails here until it joins one of the two.
 */
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { ErrorCode } from '../../../src/protocol';
import { InternalCode } from '../../../src/backend/internalCodes';

const ROOT = path.resolve(__dirname, '../../..');

/** Upper-case literals in the backend that are not codes: environment variables and the Redis scripts' error prefixes. */
const NOT_CODES = new Set(['OPENAI_API_KEY', 'AZURE_OPENAI_API_KEY', 'CT_FENCED', 'CT_TOO_LARGE']);

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(rel);
    return entry.name.endsWith('.ts') ? [rel] : [];
  });
}

/** Quoted words shaped like a code (`'STORE_FENCED'`, `"X_Y"`, or in backticks in a comment). */
function codeLiterals(source: string): string[] {
  return [...source.matchAll(/(['"`])([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\1/g)].map((m) => m[2]);
}

const KNOWN = new Set<string>([...Object.values(ErrorCode), ...Object.values(InternalCode)]);

function unknownCodes(files: readonly string[]): string[] {
  return files.flatMap((file) => codeLiterals(readFileSync(path.join(ROOT, file), 'utf8')).filter((code) => !KNOWN.has(code) && !NOT_CODES.has(code)).map((code) => `${file}: ${code}`));
}

describe('backend error codes', () => {
  it('finds a code in neither set (a planted literal), and passes the known ones', () => {
    assert.deepEqual(codeLiterals(`throw new StoreError('STORE_WOBBLY', 'x'); // \`STORE_FENCED\` ok; errorCode: "TOOL_FAILED"`), ['STORE_WOBBLY', 'STORE_FENCED', 'TOOL_FAILED']);
    assert.equal(KNOWN.has('STORE_WOBBLY'), false);
    assert.equal(KNOWN.has('STORE_FENCED'), true);
  });

  it('every code-shaped literal in src/backend is an ErrorCode or an InternalCode', () => {
    const files = sourceFiles('src/backend');
    assert.ok(files.length > 80, `${files.length} files read`);
    assert.deepEqual(unknownCodes(files), []);
  });

  it('no internal code is a protocol code too, and each is documented in docs/BACKEND.md', () => {
    const wire = new Set<string>(Object.values(ErrorCode));
    const doc = readFileSync(path.join(ROOT, 'docs/BACKEND.md'), 'utf8');
    for (const code of Object.values(InternalCode)) {
      assert.equal(wire.has(code), false, `${code} is in ErrorCode`);
      assert.ok(doc.includes(`\`${code}\``), `docs/BACKEND.md names ${code}`);
    }
  });
});
