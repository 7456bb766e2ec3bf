/**
 * `npm run package` builds a .vsix that a real VS Code (code-server 4.100.3, or the newest with CLIENT_TOOLS_VSCODE=newest) installs with
 * `--install-extension`, holding only the bundles, the chat's assets, the icons and the docs (no sources, tests, maps or
 * node_modules), with the marketplace's icon, banner and keywords, and without a warning from vsce.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

/** The part of scripts/provision-code-server.mjs this test uses. */
interface CodeServerScripts {
  findCodeServer(): string | undefined;
  vscodeTarget(): unknown;
  nodeFor(target: unknown): { binary: string };
}

describe('npm run package', function () {
  this.timeout(180_000);
  const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'client-tools-vsix-'));
  after(() => fs.rmSync(temp, { recursive: true, force: true }));

  it('produces a .vsix that code-server installs', async () => {
    const vsix = path.join(ROOT, 'client-tools.vsix');
    fs.rmSync(vsix, { force: true });
    // No standard input: a vsce that would ask "Do you want to continue?" (a missing repository) fails here.
    const built = spawnSync('npm', ['run', 'package'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    assert.equal(built.status, 0, built.stderr + built.stdout);
    assert.ok(fs.existsSync(vsix), 'no client-tools.vsix');
    // vsce's warnings start with WARNING (util.log.warn); the package must build without any.
    assert.doesNotMatch(built.stdout + built.stderr, /\bWARNING\b|Do you want to continue/, built.stdout + built.stderr);
    const bytes = fs.statSync(vsix).size;
    console.log(`      client-tools.vsix: ${(bytes / 1024 / 1024).toFixed(2)} MB`);
    assert.ok(bytes < 5 * 1024 * 1024, `client-tools.vsix is ${bytes} bytes`);

    const listing = execFileSync('unzip', ['-Z1', vsix], { encoding: 'utf8' }).split('\n').filter(Boolean);
    assert.ok(listing.includes('extension/dist/extension.js'));
    assert.ok(listing.includes('extension/dist/agentLauncher.js'), 'the ACP agents\' launcher travels beside extension.js');
    assert.ok(listing.includes('extension/dist/backend/cli.js'));
    assert.ok(listing.includes('extension/dist/backend/o200kEncoding.js'), 'the tokenizer\'s tables travel beside cli.js');
    assert.ok(listing.includes('extension/dist/backend/imageWorker.js'), 'the image worker travels beside cli.js (without it a large image could not be made smaller)');
    assert.ok(listing.includes('extension/media/chat.js'));
    assert.ok(listing.includes('extension/media/icon.png'));
    assert.ok(listing.includes('extension/docs/images/empty-light.png'), 'the README\'s pictures travel with it');
    assert.deepEqual(listing.filter((f) => /\.map$|\/src\/|\/test\/|\/scripts\/|node_modules|\.ts$/.test(f)), []);
    const shipped = /^(\[Content_Types\]\.xml|extension\.vsixmanifest|extension\/(package\.json|readme\.md|changelog\.md|LICENSE\.txt|dist\/extension\.js|dist\/agentLauncher\.js|dist\/backend\/(cli|o200kEncoding|imageWorker)\.js|media\/(chat\.js|chat\.css|icon\.svg|icon\.png)|docs\/[A-Z_]+\.md|docs\/images\/[a-z-]+\.png))$/;
    assert.deepEqual(listing.filter((f) => !shipped.test(f)), [], 'the .vsix holds only what the extension and its page need');
    // The marketplace's metadata, as vsce wrote it into the manifest.
    const manifest = execFileSync('unzip', ['-p', vsix, 'extension.vsixmanifest'], { encoding: 'utf8' });
    assert.match(manifest, /<Icon>extension\/media\/icon\.png<\/Icon>/);
    assert.match(manifest, /Id="Microsoft\.VisualStudio\.Services\.Branding\.Color" Value="#0b5cad"/);
    assert.match(manifest, /<Tags>[^<]*\bmcp\b[^<]*<\/Tags>/);

    // @ts-expect-error plain ESM script without types
    const provision = (await import('../../scripts/provision-code-server.mjs')) as CodeServerScripts;
    const codeServer = provision.findCodeServer();
    // The newest code-server (CLIENT_TOOLS_VSCODE=newest) runs under its own Node 24.
    const node = provision.nodeFor(provision.vscodeTarget()).binary;
    assert.ok(codeServer, 'code-server is not provisioned (npm run test:vscode provisions it)');
    const env = { ...process.env, HOME: temp, XDG_CONFIG_HOME: path.join(temp, 'config'), XDG_DATA_HOME: path.join(temp, 'data'), XDG_CACHE_HOME: path.join(temp, 'cache') };
    const extensionsDir = path.join(temp, 'extensions');
    const install = spawnSync(node, [codeServer, '--extensions-dir', extensionsDir, '--user-data-dir', path.join(temp, 'user-data'), '--install-extension', vsix], { env, encoding: 'utf8' });
    assert.equal(install.status, 0, install.stderr + install.stdout);
    assert.match(install.stdout + install.stderr, /successfully installed/);
    const version = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    const installed = path.join(extensionsDir, `client-tools.client-tools-${version}`);
    assert.ok(fs.existsSync(path.join(installed, 'dist', 'extension.js')), `not installed at ${installed}`);
  });
});
