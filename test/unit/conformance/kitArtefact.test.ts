/**
 * The conformance kit as a stranger gets it: `scripts/pack-kit.mjs` (part of `npm run package`)
 * makes an npm tarball with no dependencies and a single-file build; each runs from an empty folder
 * outside the repository, with a fresh npm cache and npm offline (so nothing comes from a registry
 * or this clone's node_modules), against the reference backend, and passes every check.
 */
import * as assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import type { Backend } from '../../../src/backend';
import { createBackend } from '../../../src/backend';
import type { Report } from '../../../src/conformance/report';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../../..');
/** npm's npx: beside the Node that runs the tests, else the first on PATH (CI's provisioned Node 22 and 24 come without npm). */
const NPX = [path.dirname(process.execPath), ...(process.env.PATH ?? '').split(path.delimiter)].map((dir) => path.join(dir, 'npx')).find((p) => existsSync(p)) ?? 'npx';

describe('conformance kit: the packaged artefact, run from an empty folder', function () {
  this.timeout(180_000);
  let scratch: string;
  let artefacts: { tarball: string; single: string };
  let backend: Backend;

  before(async () => {
    scratch = mkdtempSync(path.join(tmpdir(), 'ct-kit-'));
    const packed = spawnSync(process.execPath, ['scripts/pack-kit.mjs', '--out', path.join(scratch, 'out')], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(packed.status, 0, packed.stderr);
    artefacts = JSON.parse(packed.stdout.trim().split('\n').at(-1) ?? '{}') as typeof artefacts;
    backend = await createBackend({ token: 'kit-artefact-token-0123456789', model: 'offline', log: () => undefined });
  });

  after(async () => {
    await backend?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  /** A folder with nothing in it but the artefact, and an environment without this repository's npm setup. */
  function emptyFolder(name: string, artefact: string): { cwd: string; env: NodeJS.ProcessEnv } {
    const cwd = path.join(scratch, name);
    rmSync(cwd, { recursive: true, force: true });
    spawnSync('mkdir', ['-p', cwd]);
    copyFileSync(artefact, path.join(cwd, path.basename(artefact)));
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: cwd, npm_config_cache: path.join(cwd, '.npm-cache'), npm_config_offline: 'true', npm_config_update_notifier: 'false' };
    return { cwd, env };
  }

  function passedEverything(stdout: string): Report {
    const report = JSON.parse(stdout) as Report;
    assert.deepEqual(report.results.filter((r) => r.status !== 'pass').map((r) => `${r.id}: ${r.actual}`), []);
    assert.equal(report.ok, true);
    return report;
  }

  it('the tarball is a package with one bin, no dependencies, the kit, the protocol docs and schema/', () => {
    const listing = spawnSync('tar', ['tzf', artefacts.tarball], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean).sort();
    assert.ok(listing.includes('package/cli.js') && listing.includes('package/docs/PROTOCOL.md') && listing.includes('package/schema/hello.json') && listing.includes('package/THIRD-PARTY-NOTICES.txt'), listing.join(', '));
    const manifest = JSON.parse(spawnSync('tar', ['xzf', artefacts.tarball, '-O', 'package/package.json'], { encoding: 'utf8' }).stdout) as Record<string, unknown>;
    assert.deepEqual(manifest.bin, { 'client-tools-conformance': 'cli.js' });
    assert.equal(manifest.dependencies, undefined);
    assert.deepEqual(readdirSync(path.dirname(artefacts.single)).sort(), [path.basename(artefacts.single), path.basename(artefacts.tarball)].sort());
  });

  it('the docs name the artefacts as they are made and never send people to the npm registry for the kit', () => {
    const names = [path.basename(artefacts.tarball), path.basename(artefacts.single)];
    for (const doc of ['docs/USING.md', 'docs/CONFORMANCE.md', 'docs/PROTOCOL.md']) {
      const text = readFileSync(path.join(ROOT, doc), 'utf8');
      const named = [...text.matchAll(/client-tools-conformance-[\d.]+\.(?:tgz|cjs)/g)].map((m) => m[0]);
      assert.ok(named.length > 0, `${doc} names the kit's files`);
      for (const name of named) assert.ok(names.includes(name), `${doc} names ${name}; npm run package makes ${names.join(' and ')}`);
      assert.doesNotMatch(text, /npx client-tools-conformance (?:ws|--)/, `${doc} tells people to run the kit from the registry`);
    }
  });

  it('npx --yes ./client-tools-conformance-<version>.tgz checks the reference backend: every check passes, exit 0', async () => {
    const { cwd, env } = emptyFolder('npx', artefacts.tarball);
    const { stdout } = await run(NPX, ['--yes', `./${path.basename(artefacts.tarball)}`, backend.url, '--token', backend.token, '--json'], { cwd, env, maxBuffer: 16 * 1024 * 1024 });
    const report = passedEverything(stdout);
    assert.ok(report.results.some((r) => r.id === 'tools.expansion'));
  });

  it('node client-tools-conformance-<version>.cjs does the same; a failed check exits 1', async () => {
    const { cwd, env } = emptyFolder('node', artefacts.single);
    const file = path.basename(artefacts.single);
    const { stdout } = await run(process.execPath, [file, backend.url, '--token', backend.token, '--json'], { cwd, env, maxBuffer: 16 * 1024 * 1024 });
    passedEverything(stdout);
    const wrong = spawnSync(process.execPath, [file, backend.url, '--token', 'not-the-token', '--check', 'handshake.welcome'], { cwd, env, encoding: 'utf8' });
    assert.equal(wrong.status, 1, wrong.stdout);
    assert.match(wrong.stdout, /✗ handshake\.welcome/);
  });
});
