/**
 * docs/SETTINGS.md (the settings table that was the README's) names every setting package.json
 * declares, and no setting that package.json no longer has.
 */
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..', '..');

describe('docs/SETTINGS.md', () => {
  const declared = Object.keys((JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { contributes: { configuration: { properties: Record<string, unknown> } } }).contributes.configuration.properties);
  const doc = readFileSync(path.join(ROOT, 'docs', 'SETTINGS.md'), 'utf8');
  const rows = doc.split('\n').filter((line) => line.startsWith('| `clientTools.'));

  it('has a row for every setting package.json declares', () => {
    assert.ok(declared.length > 20, `${declared.length} settings declared`);
    const named = new Set(rows.flatMap((row) => [...row.split('|')[1].matchAll(/`(clientTools\.[\w.]+)`/g)].map((m) => m[1])));
    assert.deepEqual(declared.filter((key) => !named.has(key)), []);
  });

  it('names no setting package.json does not declare', () => {
    const named = [...doc.matchAll(/`(clientTools\.[\w.]+)`/g)].map((m) => m[1]).filter((key) => !key.endsWith('.'));
    assert.deepEqual(named.filter((key) => !declared.includes(key)), []);
  });
});
