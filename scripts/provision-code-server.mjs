#!/usr/bin/env node
// Installs code-server (VS Code served to a browser, with a real Node extension host) into a cache
// folder outside the clone, so the extension-host tests can run on machines that cannot reach
// Microsoft's download server. See /work/shared/notes/real-vscode.md for why each step is here.
//
//   node scripts/provision-code-server.mjs           install if needed, print the binary path
//   node scripts/provision-code-server.mjs --force   reinstall even if the cache looks complete
//
// Environment:
//   CLIENT_TOOLS_CACHE   cache root (default ~/.cache/client-tools); the install goes to
//                        <root>/code-server-<version>/
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** code-server 4.100.3 is VS Code 1.100.3; it is the last line that runs on Node 20. */
export const CODE_SERVER_VERSION = '4.100.3';

/** Marker written last: a folder without it is a half-finished install and is replaced. */
const MARKER_FILE = '.client-tools-provisioned.json';

/**
 * @vscode/ripgrep's postinstall downloads rg from GitHub, which is unreachable here. It first looks
 * for this archive in its cache under os.tmpdir(), so we put Debian's rg there. The names belong to
 * the @vscode/ripgrep version that code-server 4.100.3 pins; a new code-server may need new names.
 */
const RIPGREP_CACHE_DIR = 'vscode-ripgrep-cache-1.15.11';
const RIPGREP_ARCHIVE = 'ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz';

/**
 * What the native builds need from the system, checked by a file each package ships so that the
 * check works without dpkg too. `.ci/run` installs them; here we only name what is missing.
 * @type {{ debianPackage: string, command?: string, file?: string }[]}
 */
const SYSTEM_REQUIREMENTS = [
  { debianPackage: 'ripgrep', command: 'rg' },
  { debianPackage: 'pkg-config', command: 'pkg-config' },
  { debianPackage: 'libkrb5-dev', file: '/usr/include/gssapi/gssapi.h' },
  { debianPackage: 'libsecret-1-dev', file: '/usr/include/libsecret-1/libsecret/secret.h' },
  { debianPackage: 'libx11-dev', file: '/usr/include/X11/Xlib.h' },
  { debianPackage: 'libxkbfile-dev', file: '/usr/include/X11/extensions/XKBfile.h' },
  { debianPackage: 'build-essential', command: 'make' },
  { debianPackage: 'build-essential', command: 'g++' },
  { debianPackage: 'python3', command: 'python3' },
];

/**
 * Native modules that code-server's own postinstall builds in nested `npm install` runs. An install
 * whose install scripts were skipped still "succeeds", so we check that the binaries exist.
 */
const NATIVE_BINARIES = [
  'lib/vscode/node_modules/node-pty/build/Release/pty.node',
  'lib/vscode/node_modules/@vscode/spdlog/build/Release/spdlog.node',
  'lib/vscode/node_modules/kerberos/build/Release/kerberos.node',
  'lib/vscode/node_modules/@vscode/ripgrep/bin/rg',
];

/** @returns {string} the cache root shared by every provisioned tool of this project */
export function cacheRoot() {
  return process.env.CLIENT_TOOLS_CACHE
    ? path.resolve(process.env.CLIENT_TOOLS_CACHE)
    : path.join(os.homedir(), '.cache', 'client-tools');
}

/**
 * @param {string} [version]
 * @returns {string} the folder one code-server version is installed into
 */
export function codeServerInstallDir(version = CODE_SERVER_VERSION) {
  return path.join(cacheRoot(), `code-server-${version}`);
}

/**
 * @param {string} installDir
 * @returns {string} the code-server launcher inside an install folder
 */
function binaryIn(installDir) {
  return path.join(installDir, 'node_modules', '.bin', 'code-server');
}

/**
 * True when the folder holds a finished install for this version and this Node ABI (native modules
 * built for another Node major would fail to load, so a Node upgrade means a reinstall).
 * @param {string} installDir
 * @param {string} version
 */
function isComplete(installDir, version) {
  try {
    const marker = JSON.parse(fs.readFileSync(path.join(installDir, MARKER_FILE), 'utf8'));
    return marker.version === version
      && marker.nodeModuleAbi === process.versions.modules
      && fs.existsSync(binaryIn(installDir));
  } catch {
    return false;
  }
}

/**
 * The code-server binary of a finished install, without installing anything.
 * @param {{ version?: string }} [options]
 * @returns {string | undefined} the path, or undefined when not provisioned
 */
export function findCodeServer({ version = CODE_SERVER_VERSION } = {}) {
  const dir = codeServerInstallDir(version);
  return isComplete(dir, version) ? binaryIn(dir) : undefined;
}

/**
 * Installs code-server into the cache unless a finished install is already there, and returns the
 * path of its binary. Safe to call on every run: the warm path only reads a marker file.
 * @param {{ version?: string, force?: boolean, log?: (line: string) => void }} [options]
 *   log receives progress lines (default: stderr, so stdout stays free for test output)
 * @returns {Promise<string>} absolute path of the code-server binary
 */
export async function provisionCodeServer({ version = CODE_SERVER_VERSION, force = false, log = (line) => console.error(line) } = {}) {
  const installDir = codeServerInstallDir(version);
  if (!force && isComplete(installDir, version)) {
    log(`[provision] code-server ${version} already installed in ${installDir}`);
    return binaryIn(installDir);
  }

  checkNodeVersion(version);
  checkSystemRequirements();

  const started = Date.now();
  const root = cacheRoot();
  fs.mkdirSync(root, { recursive: true });
  // Install into a staging folder next to the target and rename it at the end: a run that is
  // interrupted leaves no half-installed target, and two concurrent runs cannot mix their files.
  const staging = fs.mkdtempSync(path.join(root, `.code-server-${version}.staging-`));
  // A TMPDIR of our own holds the ripgrep cache and npm's temp files, and is removed afterwards.
  const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'client-tools-provision-'));
  try {
    seedRipgrepCache(tmpDir);
    log(`[provision] installing code-server ${version} into ${installDir} (takes about 1 to 3 minutes)`);
    await runNpmInstall(staging, version, tmpDir, log);
    verifyInstall(staging, version);
    fs.writeFileSync(path.join(staging, MARKER_FILE), `${JSON.stringify({
      version,
      nodeVersion: process.version,
      nodeModuleAbi: process.versions.modules,
      installedAt: new Date().toISOString(),
    }, null, 2)}\n`);
    moveIntoPlace(staging, installDir, version, force);
    log(`[provision] code-server ${version} ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return binaryIn(installDir);
  } finally {
    fs.rmSync(tmpDir, { recursive: true, force: true });
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

/** @param {string} version */
function checkNodeVersion(version) {
  // code-server's postinstall refuses other Node majors, after a long download; say it up front.
  const major = Number(process.versions.node.split('.')[0]);
  if (version === CODE_SERVER_VERSION && major !== 20) {
    throw new Error(`code-server ${version} needs Node 20; this is Node ${process.versions.node}.`);
  }
}

/** Names the Debian packages whose files are missing, instead of a node-gyp error 2000 lines later. */
function checkSystemRequirements() {
  const missing = new Set();
  for (const req of SYSTEM_REQUIREMENTS) {
    const ok = req.file ? fs.existsSync(req.file) : Boolean(req.command && which(req.command));
    if (!ok) missing.add(req.debianPackage);
  }
  if (missing.size > 0) {
    const names = [...missing].join(' ');
    throw new Error(
      `code-server's native modules need Debian packages that are missing: ${names}\n`
      + `  install them with: apt-get install -y ${names}\n`
      + '  (.ci/run does this; on a desktop use your package manager)',
    );
  }
}

/**
 * @param {string} command
 * @returns {string | undefined} the first executable of that name on PATH
 */
function which(command) {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, command);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // not in this folder
    }
  }
  return undefined;
}

/** @param {string} tmpDir the TMPDIR the npm install will run with */
function seedRipgrepCache(tmpDir) {
  const rg = fs.realpathSync(/** @type {string} */ (which('rg')));
  // The archive must hold a single entry named `rg`, whatever the system binary is called.
  const source = path.join(tmpDir, 'rg-source');
  fs.mkdirSync(source);
  fs.copyFileSync(rg, path.join(source, 'rg'));
  fs.chmodSync(path.join(source, 'rg'), 0o755);
  const cacheDir = path.join(tmpDir, RIPGREP_CACHE_DIR);
  fs.mkdirSync(cacheDir);
  const tar = spawnSync('tar', ['-czf', path.join(cacheDir, RIPGREP_ARCHIVE), '-C', source, 'rg'], { stdio: 'inherit' });
  if (tar.status !== 0) throw new Error('could not create the ripgrep cache archive with tar');
}

/**
 * @param {string} prefix
 * @param {string} version
 * @param {string} tmpDir
 * @param {(line: string) => void} log
 * @returns {Promise<void>}
 */
function runNpmInstall(prefix, version, tmpDir, log) {
  const args = [
    'install',
    '--prefix', prefix,
    // As root, code-server's postinstall refuses to run without it.
    '--unsafe-perm',
    '--omit=dev',
    '--no-audit',
    '--no-fund',
    // Shows the postinstall's nested installs as they happen instead of a silent minute.
    '--foreground-scripts',
    `code-server@${version}`,
  ];
  const env = {
    ...process.env,
    TMPDIR: tmpDir,
    // The postinstall reads these from the environment, also in its nested `npm install` runs.
    npm_config_unsafe_perm: 'true',
    // node-pty's postinstall runs `npx node-gyp`; the npm config here says yes=false, so npx would
    // stop and ask (and fail without a terminal).
    npm_config_yes: 'true',
    // npm 11 skips dependency install scripts unless approved. code-server's postinstall runs
    // nested `npm install`s in lib/vscode whose native modules (node-pty, spdlog, kerberos,
    // watcher, ripgrep) must build; only the environment reaches those nested runs. This applies
    // to this pinned tool install in its own folder, never to the project's dependencies.
    npm_config_dangerously_allow_all_scripts: 'true',
    npm_config_update_notifier: 'false',
  };
  // node-gyp would download Node's headers (no internet); use the ones installed with Node.
  if (fs.existsSync('/usr/include/node/node.h')) env.npm_config_nodedir = '/usr';
  else log('[provision] warning: /usr/include/node/node.h not found; node-gyp may try to download headers');

  log(`[provision] npm ${args.join(' ')}`);
  return new Promise((resolve, reject) => {
    // npm's own output goes to stderr so that a caller's stdout (test results) stays clean.
    const child = spawn('npm', args, { env, stdio: ['ignore', process.stderr, process.stderr] });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`npm install of code-server@${version} failed (${signal ?? `exit code ${code}`}); see the npm output above`));
    });
  });
}

/**
 * @param {string} staging
 * @param {string} version
 */
function verifyInstall(staging, version) {
  const packageDir = path.join(staging, 'node_modules', 'code-server');
  const missing = NATIVE_BINARIES.filter((rel) => !fs.existsSync(path.join(packageDir, rel)));
  if (missing.length > 0) {
    throw new Error(`code-server installed, but its native modules were not built (were install scripts skipped?):\n  ${missing.join('\n  ')}`);
  }
  const result = spawnSync(binaryIn(staging), ['--version'], { encoding: 'utf8', timeout: 60_000 });
  if (result.status !== 0 || !result.stdout.includes(version)) {
    throw new Error(`code-server --version did not report ${version}:\n${result.stdout}${result.stderr}`);
  }
}

/**
 * @param {string} staging
 * @param {string} installDir
 * @param {string} version
 * @param {boolean} force
 */
function moveIntoPlace(staging, installDir, version, force) {
  if (!force && isComplete(installDir, version)) return; // a concurrent run finished first
  if (fs.existsSync(installDir)) {
    // Move the stale folder aside first so the target path is never half-deleted.
    const trash = `${installDir}.old-${process.pid}-${Date.now()}`;
    fs.renameSync(installDir, trash);
    fs.rmSync(trash, { recursive: true, force: true });
  }
  // mkdtemp made the staging folder private; the install itself is not secret.
  fs.chmodSync(staging, 0o755);
  fs.renameSync(staging, installDir);
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  try {
    const binary = await provisionCodeServer({ force: process.argv.includes('--force') });
    console.log(binary);
  } catch (error) {
    console.error(`[provision] ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
}
