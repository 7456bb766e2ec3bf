// Makes sure the Debian packages the real-VS Code tests and `npm start` need are installed, and
// installs the missing ones (as root, or with passwordless sudo). Used by `.ci/run`, `npm test`
// and `npm start`, so each works on a fresh Debian 12 machine. Plain Node, no dependencies: it runs
// before `npm ci` in CI.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

export const DEBIAN_PACKAGES = [
  'chromium', // the browser that drives the workbench (Playwright cannot download its own here)
  'ripgrep', // seeds @vscode/ripgrep, whose postinstall would download from GitHub
  'libkrb5-dev', // code-server's kerberos module builds against gssapi/gssapi.h
  'libsecret-1-dev', // listed by code-server's install guide for its native modules
  'libx11-dev',
  'libxkbfile-dev',
  'pkg-config',
  'build-essential', // make and g++ for node-gyp
  'python3', // node-gyp
  'redis-server', // the shared state of backend replicas (--redis), started per test on a random port
  'python3-websockets', // a third-party backend that half-closes TCP (the conformance kit's size check is tested against it)
];

function installed(pkg) {
  const r = spawnSync('dpkg-query', ['-W', '-f=${Status}', pkg], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.includes('install ok installed');
}

function asRoot(args) {
  const root = process.getuid?.() === 0;
  const cmd = root ? args[0] : 'sudo';
  const argv = root ? args.slice(1) : ['-n', ...args];
  const r = spawnSync(cmd, argv, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  return r.status === 0;
}

export function ensureSystemPackages() {
  if (!fs.existsSync('/usr/bin/dpkg-query')) {
    console.error('[ensure-system] not a Debian-like system: make sure Chromium is at /usr/bin/chromium (or set CLIENT_TOOLS_CHROMIUM) and ripgrep is installed');
    return;
  }
  const missing = DEBIAN_PACKAGES.filter((p) => !installed(p));
  if (missing.length === 0) return;
  console.error(`[ensure-system] installing Debian packages: ${missing.join(' ')}`);
  const lock = ['-o', 'DPkg::Lock::Timeout=300'];
  if (!asRoot(['apt-get', ...lock, 'update', '-q']) || !asRoot(['apt-get', ...lock, 'install', '-y', '-q', ...missing])) {
    throw new Error(`could not install ${missing.join(' ')}; run as root: apt-get install -y ${missing.join(' ')}`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    ensureSystemPackages();
    console.error('[ensure-system] Debian packages present');
  } catch (e) {
    console.error(`[ensure-system] ${e.message}`);
    process.exit(1);
  }
}
