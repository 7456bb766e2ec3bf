import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CodedError, ERROR_DESCRIPTIONS, ErrorCode, isCodedError } from '../../../src/protocol/errors';

const PROTOCOL_DOC = path.join(__dirname, '..', '..', '..', 'docs', 'PROTOCOL.md');
const TABLE_HEADING = '## Error codes';

/** The rows of the first `| Code | Meaning |` table under the error-code heading, code without backticks. */
function documentedCodes(markdown: string): [string, string][] {
  const start = markdown.indexOf(`\n${TABLE_HEADING}\n`);
  assert.ok(start >= 0, `docs/PROTOCOL.md has a "${TABLE_HEADING}" section`);
  const lines = markdown.slice(start).split('\n');
  const header = lines.findIndex((l) => /^\|\s*Code\s*\|\s*Meaning\s*\|$/.test(l.trim()));
  assert.ok(header >= 0, 'the section has a | Code | Meaning | table');
  assert.match(lines[header + 1].trim(), /^\|\s*-+\s*\|\s*-+\s*\|$/);
  const rows: [string, string][] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.trim().startsWith('|')) break;
    const cells = line.trim().slice(1, -1).split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, '|'));
    assert.equal(cells.length, 2, `a row has two cells: ${line}`);
    rows.push([cells[0].replace(/^`|`$/g, ''), cells[1]]);
  }
  return rows;
}

/** The rows as they should read, for the failure message. */
function expectedTable(): string {
  return ['| Code | Meaning |', '| --- | --- |', ...Object.entries(ERROR_DESCRIPTIONS).map(([code, text]) => `| \`${code}\` | ${text} |`)].join('\n');
}

describe('protocol error codes', () => {
  const codes = Object.values(ErrorCode);

  it('every code has a description, and every description a code', () => {
    assert.deepEqual(Object.keys(ERROR_DESCRIPTIONS).sort(), [...codes].sort());
  });

  it('codes are unique SCREAMING_SNAKE_CASE strings', () => {
    assert.equal(new Set(codes).size, codes.length);
    for (const code of codes) assert.match(code, /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$/);
    for (const [key, code] of Object.entries(ErrorCode)) assert.equal(code.replace(/_/g, ''), key.toUpperCase(), `${key} spells ${code}`);
  });

  it('descriptions are single sentences ending with a full stop', () => {
    for (const [code, text] of Object.entries(ERROR_DESCRIPTIONS)) {
      assert.ok(text.length > 10 && text.length < 200, `${code} has a short description`);
      assert.match(text, /^[A-Z`].*\.$/, `${code}: "${text}"`);
      assert.ok(!text.includes('|') && !text.includes('\n'), `${code} fits in a markdown table cell`);
    }
  });

  it('docs/PROTOCOL.md lists exactly these codes, with these meanings, in this order', () => {
    const rows = documentedCodes(readFileSync(PROTOCOL_DOC, 'utf8'));
    assert.deepEqual(rows, Object.entries(ERROR_DESCRIPTIONS), `the table in docs/PROTOCOL.md should read:\n\n${expectedTable()}\n`);
  });

  it('CodedError keeps its code and related id and is recognised', () => {
    const error = new CodedError(ErrorCode.PermissionDenied, 'The user denied WriteFile.', 'req-1');
    assert.ok(isCodedError(error));
    assert.ok(error instanceof Error);
    assert.equal(error.code, 'PERMISSION_DENIED');
    assert.equal(error.relatedId, 'req-1');
    assert.equal(error.name, 'CodedError');
    assert.ok(!isCodedError(new Error('plain')));
    assert.ok(!isCodedError({ code: 'PERMISSION_DENIED', message: 'look-alike' }));
  });
});
