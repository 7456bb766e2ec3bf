/**
 * Every relative link in README.md, CHANGELOG.md and docs/*.md leads somewhere: the file exists, and
 * a `#anchor` names a heading of the Markdown file it points into (GitHub's anchors). Material moved
 * from the README into docs/ (issue 29) keeps its links working from its new place.
 */
import { strict as assert } from 'node:assert';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { anchorsOf, headingAnchor, relativeLinks } from '../../support/markdownLinks';

const ROOT = path.join(__dirname, '..', '..', '..');
const DOCS = ['README.md', 'CHANGELOG.md', ...readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

describe('links in the README and docs/', () => {
  it('finds the links it checks (a guard against a parser that sees none)', () => {
    assert.ok(relativeLinks(readFileSync(path.join(ROOT, 'README.md'), 'utf8')).length >= 10);
    assert.deepEqual(relativeLinks('see [a](docs/A.md#x), `[b](no.md)`, [c](https://example.com)'), ['docs/A.md#x']);
    assert.equal(headingAnchor('Tool Groups, status bar and palette'), 'tool-groups-status-bar-and-palette');
    assert.equal(headingAnchor('Soak and attacks (sections 6 and 7)'), 'soak-and-attacks-sections-6-and-7');
  });

  for (const doc of DOCS) {
    it(`${doc}: every relative link names a file that exists and a heading that is there`, () => {
      const broken: string[] = [];
      for (const target of relativeLinks(readFileSync(path.join(ROOT, doc), 'utf8'))) {
        const [file, anchor] = target.split('#', 2);
        const resolved = file ? path.resolve(path.dirname(path.join(ROOT, doc)), decodeURI(file)) : path.join(ROOT, doc);
        if (!existsSync(resolved)) broken.push(`${target}: no such file`);
        else if (anchor && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor)) broken.push(`${target}: no such heading`);
      }
      assert.deepEqual(broken, []);
    });
  }
});
