import assert from 'node:assert/strict';
import { filePathIn } from '../../../src/webview/filePaths';
import { renderMarkdown } from '../../../src/webview/markdown';

describe('chat: file paths in answers', () => {
  it('takes inline code that names a file, with an optional :line', () => {
    assert.deepEqual(filePathIn('src/a.ts'), { path: 'src/a.ts' });
    assert.deepEqual(filePathIn('notes.md'), { path: 'notes.md' });
    assert.deepEqual(filePathIn('src/a.ts:12'), { path: 'src/a.ts', line: 12 });
    assert.deepEqual(filePathIn('Makefile/x/README'), { path: 'Makefile/x/README' });
  });

  it('leaves code that is not a path alone: calls, member access, URLs, commands, globs, folders', () => {
    for (const code of ['console.log', 'foo()', 'a.b(c)', 'https://example.com/a.ts', 'command:workbench.action.x', 'rm -rf /',
      '**/*.ts', 'src/', '../', 'x = 1', '1.5', 'C:\\\\evil\\\\a.ts', '`', '', 'a'.repeat(400) + '.ts']) {
      assert.equal(filePathIn(code), undefined, code);
    }
  });

  it('renders a path as a button carrying it as data, never as a link, its text escaped', () => {
    const html = renderMarkdown('See `src/a.ts:3` and `a"onclick=x.ts` and [x](src/a.ts).');
    assert.match(html, /<button type="button" class="file-link" data-path="src\/a.ts" data-line="3" title="Open src\/a.ts"><code>src\/a.ts:3<\/code><\/button>/);
    assert.ok(!html.includes('href'), html);
    assert.ok(!html.includes('"onclick'), html);
  });
});
