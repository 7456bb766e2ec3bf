/**
 * `npm run package` builds a .vsix that a real VS Code (code-server 4.100.3, or the newest with CLIENT_TOOLS_VSCODE=newest) installs with
 * `--install-extension`, holding only the bundles (no sources, maps or node_modules).
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
    const built = spawnSync('npm', ['run', 'package'], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(built.status, 0, built.stderr + built.stdout);
    assert.ok(fs.existsSync(vsix), 'no client-tools.vsix');

    const listing = execFileSync('unzip', ['-Z1', vsix], { encoding: 'utf8' }).split('\n').filter(Boolean);
    assert.ok(listing.includes('extension/dist/extension.js'));
    assert.ok(listing.includes('extension/dist/backend/cli.js'));
    assert.ok(listing.includes('extension/media/chat.js'));
    assert.deepEqual(listing.filter((f) => /\.map$|\/src\/|node_modules|\.ts$/.test(f)), []);

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
