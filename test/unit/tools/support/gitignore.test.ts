import * as assert from 'node:assert/strict';
import { GitIgnore } from '../../../../src/tools/support/gitignore';

describe('GitIgnore', () => {
  const rules = new GitIgnore(
    ['# build output', 'dist/', '*.log', '!keep.log', '/root-only.txt', 'docs/**/draft.md', 'node_modules', 'secret\\ name', '\\#hash', ''].join('\n'),
  );

  it('ignores files matched by name at any depth, and folders with everything below them', () => {
    assert.equal(rules.ignores('app.log'), true);
    assert.equal(rules.ignores('src/deep/app.log'), true);
    assert.equal(rules.ignores('dist/bundle.js'), true);
    assert.equal(rules.ignores('pkg/dist/x.js'), true);
    assert.equal(rules.ignores('node_modules/a/index.js'), true);
    assert.equal(rules.ignores('src/index.ts'), false);
  });

  it('re-includes with !, but not inside an ignored folder', () => {
    assert.equal(rules.ignores('keep.log'), false);
    const nested = new GitIgnore('build/\n!build/keep.txt\n');
    assert.equal(nested.ignores('build/keep.txt'), true);
  });

  it('anchors patterns with a leading or inner slash to the root', () => {
    assert.equal(rules.ignores('root-only.txt'), true);
    assert.equal(rules.ignores('sub/root-only.txt'), false);
    assert.equal(rules.ignores('docs/draft.md'), true);
    assert.equal(rules.ignores('docs/a/b/draft.md'), true);
    assert.equal(rules.ignores('other/docs/draft.md'), false);
  });

  it('a trailing slash matches folders only; escapes and comments work', () => {
    assert.equal(new GitIgnore('dist/\n').ignores('dist'), false);
    assert.equal(rules.ignores('secret name'), true);
    assert.equal(rules.ignores('#hash'), true);
    assert.equal(new GitIgnore('# only a comment\n\n').isEmpty, true);
  });
});
