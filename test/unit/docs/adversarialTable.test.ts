import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..', '..');

describe('docs/SECURITY.md adversarial table', () => {
  it('is what scripts/count-adversarial.mjs prints from the test files (no stale counts after adding attacks)', () => {
    const printed = execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'count-adversarial.mjs')], { encoding: 'utf8' }).trim();
    const doc = readFileSync(path.join(ROOT, 'docs', 'SECURITY.md'), 'utf8');
    const start = doc.indexOf('| Group | Cases | File |');
    assert.ok(start >= 0, 'docs/SECURITY.md has the adversarial table');
    const end = doc.indexOf('\n', doc.indexOf('| **Total**', start));
    assert.equal(doc.slice(start, end).trim(), printed, 'regenerate the table: node scripts/count-adversarial.mjs');
  });
});
