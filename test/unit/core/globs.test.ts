import * as assert from 'node:assert/strict';
import { expandBraces, globToRegExp } from '../../../src/core/globs';

describe('glob helpers', () => {
  const matches = (glob: string, p: string) => globToRegExp(glob).test(p);

  it('keeps * and ? within a segment and lets ** span segments, including none', () => {
    assert.equal(matches('*.ts', 'a.ts'), true);
    assert.equal(matches('*.ts', 'src/a.ts'), false);
    assert.equal(matches('**/*.ts', 'a.ts'), true);
    assert.equal(matches('**/*.ts', 'src/deep/a.ts'), true);
    assert.equal(matches('src/**', 'src/a/b.ts'), true);
    assert.equal(matches('src/**/test_*.py', 'src/test_x.py'), true);
    assert.equal(matches('src/**/test_*.py', 'src/a/b/test_x.py'), true);
    assert.equal(matches('?.md', 'ab.md'), false);
  });

  it('handles character classes, braces and literal dots', () => {
    assert.equal(matches('**/{package.json,tsconfig.json}', 'app/tsconfig.json'), true);
    assert.equal(matches('file[0-9].txt', 'file7.txt'), true);
    assert.equal(matches('file[!0-9].txt', 'file7.txt'), false);
    assert.equal(matches('*.ts', 'aXts'), false);
  });

  it('expands braces, nested too, so VS Code gets a flat list', () => {
    assert.deepEqual(expandBraces('**/*.{js,map}'), ['**/*.js', '**/*.map']);
    assert.deepEqual(expandBraces('{a,b{1,2}}/x'), ['a/x', 'b1/x', 'b2/x']);
    assert.deepEqual(expandBraces('plain/**'), ['plain/**']);
  });
});
