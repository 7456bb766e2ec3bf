/**
 * The README is the front door (issue 29): a page a new user reads in two minutes, whose first
 * lines are the two commands, whose pictures are the chat at VS Code's 300 px side bar in Light and
 * Dark as `npm run screenshots` made them, and which leads to the reference material in docs/.
 */
import { strict as assert } from 'node:assert';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PNG } from 'pngjs';
import { relativeLinks } from '../../support/markdownLinks';

const ROOT = path.join(__dirname, '..', '..', '..');
const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const SCRIPTS = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
/** The states the README shows (test/e2e/readme-screenshots.e2e.test.ts takes them), each in both themes. */
const STATES = ['empty', 'tool-card', 'prompt', 'review', 'model-error'];
const THEMES = ['light', 'dark'];

const images = (): string[] => relativeLinks(README).filter((target) => /\.(png|jpe?g|gif|svg|webp)$/i.test(target));

describe('README.md, the front door', () => {
  it('opens with the two commands, `npm ci && npm start` and `npm ci && npm test`, and every npm script it names exists', () => {
    const first = /^# [^\n]+\n\n```sh\n([\s\S]*?)\n```/.exec(README);
    assert.ok(first, 'the first thing under the title is a sh block');
    assert.deepEqual(first[1].split('\n').map((line) => line.split('#')[0].trim()), ['npm ci && npm start', 'npm ci && npm test']);
    const code = [...README.matchAll(/```[\s\S]*?```|`[^`\n]+`/g)].map((m) => m[0]).join('\n');
    const named = [...code.matchAll(/\bnpm (?:run )?([a-z][\w:-]*)/g)].map((m) => m[1]).filter((name) => !['ci', 'install'].includes(name));
    assert.ok(named.includes('start') && named.includes('test') && named.includes('package') && named.includes('screenshots'), named.join(', '));
    for (const name of named) assert.ok(SCRIPTS[name], `README names npm ${name}, which package.json does not have`);
  });

  it('is short enough to read in two minutes: at most 100 lines and 1,000 words', () => {
    assert.ok(README.split('\n').length <= 100, `${README.split('\n').length} lines`);
    const words = README.split(/\s+/).filter(Boolean).length;
    assert.ok(words <= 1_000, `${words} words`);
  });

  it('shows each state (empty chat, tool card, prompt, decided review, model error) in Light and in Dark', () => {
    const expected = STATES.flatMap((state) => THEMES.map((theme) => `docs/images/${state}-${theme}.png`)).sort();
    assert.deepEqual([...new Set(images())].sort(), expected);
  });

  for (const image of STATES.flatMap((state) => THEMES.map((theme) => `docs/images/${state}-${theme}.png`))) {
    it(`${image} exists and is a PNG of the 300 px side bar`, () => {
      const file = path.join(ROOT, image);
      assert.ok(existsSync(file), `${image} is missing: run npm run screenshots`);
      const png = PNG.sync.read(readFileSync(file));
      assert.equal(png.width, 300);
      assert.ok(png.height >= 400, `${png.height} px tall`);
    });
  }

  it('docs/images/ holds only pictures the README shows (no stale ones)', () => {
    const shown = new Set(images().map((target) => path.basename(target)));
    assert.deepEqual(readdirSync(path.join(ROOT, 'docs', 'images')).filter((f) => !shown.has(f)), []);
  });

  it('links the reference material that moved out of it: usage, settings, security, benchmarks, development', () => {
    const links = new Set(relativeLinks(README));
    for (const doc of ['docs/USING.md', 'docs/SETTINGS.md', 'docs/SECURITY.md', 'docs/BENCHMARKS.md', 'docs/DEVELOPMENT.md']) assert.ok(links.has(doc), `README does not link ${doc}`);
  });
});
