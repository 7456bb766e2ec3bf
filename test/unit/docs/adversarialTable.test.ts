import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..', '..');

describe('README adversarial table', () => {
  it('is what scripts/count-adversarial.mjs prints from the test files (no stale counts after adding attacks)', () => {
    const printed = execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'count-adversarial.mjs')], { encoding: 'utf8' }).trim();
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const start = readme.indexOf('| Group | Cases | File |');
    assert.ok(start >= 0, 'README has the adversarial table');
    const end = readme.indexOf('\n', readme.indexOf('| **Total**', start));
    assert.equal(readme.slice(start, end).trim(), printed, 'regenerate the table: node scripts/count-adversarial.mjs');
  });
});
