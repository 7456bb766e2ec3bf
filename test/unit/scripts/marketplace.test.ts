/**
 * The extension's marketplace metadata in package.json (issue 29): a PNG icon the marketplace takes
 * (it refuses SVG), a gallery banner, keywords and categories, no made-up address, and a
 * .vscodeignore that re-includes only files the .vsix needs. What `vsce package` makes of them (no
 * warning, no source or test file) is checked on the built .vsix in test/e2e/package.e2e.test.ts.
 */
import { strict as assert } from 'node:assert';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PNG } from 'pngjs';

const ROOT = path.join(__dirname, '..', '..', '..');
const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  icon?: string;
  galleryBanner?: { color?: string; theme?: string };
  keywords?: string[];
  categories?: string[];
  repository?: unknown;
  bugs?: unknown;
  homepage?: unknown;
  private?: boolean;
  scripts: Record<string, string>;
};

describe('package.json: marketplace metadata', () => {
  it('the icon is a square PNG of 128 or 256 px (the marketplace refuses SVG icons)', () => {
    assert.ok(manifest.icon, 'package.json names an icon');
    assert.match(manifest.icon, /\.png$/);
    const png = PNG.sync.read(readFileSync(path.join(ROOT, manifest.icon)));
    assert.ok([128, 256].includes(png.width) && png.height === png.width, `${png.width}×${png.height}`);
  });

  it('has a gallery banner, keywords (at most 30, as the marketplace allows) and categories', () => {
    assert.match(manifest.galleryBanner?.color ?? '', /^#[0-9a-f]{6}$/i);
    assert.ok(['dark', 'light'].includes(manifest.galleryBanner?.theme ?? ''));
    const keywords = manifest.keywords ?? [];
    assert.ok(keywords.length >= 5 && keywords.length <= 30, keywords.join(', '));
    assert.equal(new Set(keywords).size, keywords.length, 'no keyword twice');
    assert.deepEqual(manifest.categories, ['AI', 'Chat']);
  });

  it('names no address that does not exist (no repository, bugs or homepage on an example domain)', () => {
    const addresses = JSON.stringify([manifest.repository, manifest.bugs, manifest.homepage]);
    assert.doesNotMatch(addresses, /example\.(invalid|com|org|net)|\.invalid\b|localhost/);
    // Without a repository, vsce asks whether to go on unless told: the package script tells it.
    if (manifest.repository === undefined) assert.match(manifest.scripts.package, /--allow-missing-repository/);
  });

  it('stays private to npm (the repository is no npm package; the .vsix and the kit have their own manifests)', () => {
    assert.equal(manifest.private, true);
  });

  it('.vscodeignore leaves everything out and re-includes only files that exist or the build makes', () => {
    const lines = readFileSync(path.join(ROOT, '.vscodeignore'), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
    assert.equal(lines[0], '**', 'everything is left out first');
    const built = new Set(['dist/extension.js', 'dist/backend/cli.js', 'media/chat.js', 'media/chat.css']);
    for (const line of lines.slice(1)) {
      assert.ok(line.startsWith('!'), `${line}: only re-includes after **`);
      const pattern = line.slice(1);
      assert.doesNotMatch(pattern, /^(src|test|scripts|bench|node_modules|out)\b|\.ts$|\.map$/, `${pattern} is source, test or build leftovers`);
      if (!pattern.includes('*') && !built.has(pattern)) assert.ok(existsSync(path.join(ROOT, pattern)), `${pattern} does not exist`);
    }
  });
});
