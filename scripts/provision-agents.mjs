#!/usr/bin/env node
// Installs the real ACP agents the agent tests run (pinned exact versions, from the npm registry
// only) into the cache outside the clone, one folder per package and version, as
// provision-code-server.mjs does for code-server. Nothing is fetched at test time, and the
// extension never downloads an agent: it only finds one that is installed.
//
//   node scripts/provision-agents.mjs                 install what is missing, print one line per agent
//   node scripts/provision-agents.mjs claude gemini   only these (names of AGENTS below)
//   node scripts/provision-agents.mjs --force         reinstall even when the cache looks complete
//
// Environment: CLIENT_TOOLS_CACHE (default ~/.cache/client-tools); installs go to
// <root>/agents/<package>@<version>/ (a `/` in the package name becomes `+`).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheRoot } from './cache-root.mjs';

/**
 * @typedef {object} AgentPackage
 * @property {string} name what the tests and this script call it
 * @property {string} pkg the npm package
 * @property {string} version pinned exactly: `npm install` of a range resolved differently here than `npm view` said
 * @property {string} entry the file to run, relative to the install folder
 * @property {'node' | 'binary'} runWith a JavaScript entry runs with Node; a native one directly
 * @property {string[]} args arguments that make it speak ACP on stdio
 */

/** @type {AgentPackage[]} */
export const AGENTS = [
  {
    name: 'claude',
    pkg: '@zed-industries/claude-code-acp',
    version: '0.16.2',
    entry: 'node_modules/@zed-industries/claude-code-acp/dist/index.js',
    runWith: 'node',
    args: [],
  },
  {
    // claude-code-acp's successor: Claude Code as a native binary (an npm platform package); no fs/* or terminal/*.
    name: 'claude-agent',
    pkg: '@agentclientprotocol/claude-agent-acp',
    version: '0.49.0',
    entry: 'node_modules/@agentclientprotocol/claude-agent-acp/dist/index.js',
    runWith: 'node',
    args: [],
  },
  {
    name: 'gemini',
    pkg: '@google/gemini-cli',
    version: '0.61.0',
    entry: 'node_modules/@google/gemini-cli/bundle/gemini.js',
    runWith: 'node',
    args: ['--acp'],
  },
  {
    name: 'codex',
    pkg: '@zed-industries/codex-acp',
    version: '0.16.0',
    entry: 'node_modules/@zed-industries/codex-acp-linux-x64/bin/codex-acp',
    runWith: 'binary',
    args: [],
  },
  {
    name: 'opencode',
    pkg: 'opencode-ai',
    version: '1.18.33',
    entry: 'node_modules/opencode-linux-x64/bin/opencode',
    runWith: 'binary',
    args: ['acp'],
  },
];

/** Marker written last: a folder without it is a half-finished install and is replaced. */
const MARKER_FILE = '.client-tools-provisioned.json';

/**
 * @param {AgentPackage} agent
 * @returns {string} the folder this package and version are installed into
 */
export function agentInstallDir(agent) {
  return path.join(cacheRoot(), 'agents', `${agent.pkg.replace('/', '+')}@${agent.version}`);
}

/**
 * @typedef {object} AgentCommand
 * @property {string} name
 * @property {string} command the program to spawn
 * @property {string[]} args its arguments (the entry first when it runs with Node)
 */

/**
 * @param {AgentPackage} agent
 * @returns {AgentCommand | undefined} how to start a finished install, or undefined when it is not installed
 */
export function findAgent(agent) {
  const dir = agentInstallDir(agent);
  if (!isComplete(dir, agent)) return undefined;
  const entry = path.join(dir, agent.entry);
  return agent.runWith === 'node'
    ? { name: agent.name, command: process.execPath, args: [entry, ...agent.args] }
    : { name: agent.name, command: entry, args: [...agent.args] };
}

/** @param {string} name */
export function agentNamed(name) {
  const agent = AGENTS.find((a) => a.name === name);
  if (!agent) throw new Error(`unknown agent "${name}": use one of ${AGENTS.map((a) => a.name).join(', ')}`);
  return agent;
}

/**
 * @param {string} dir
 * @param {AgentPackage} agent
 */
function isComplete(dir, agent) {
  try {
    const marker = JSON.parse(fs.readFileSync(path.join(dir, MARKER_FILE), 'utf8'));
    return marker.pkg === agent.pkg && marker.version === agent.version && fs.existsSync(path.join(dir, agent.entry));
  } catch {
    return false;
  }
}

/**
 * Installs one agent unless a finished install is there, and returns how to start it. The warm path
 * reads one marker file.
 * @param {AgentPackage} agent
 * @param {{ force?: boolean, log?: (line: string) => void }} [options]
 * @returns {Promise<AgentCommand>}
 */
export async function provisionAgent(agent, { force = false, log = (line) => console.error(line) } = {}) {
  const dir = agentInstallDir(agent);
  if (!force && isComplete(dir, agent)) return /** @type {AgentCommand} */ (findAgent(agent));
  const started = Date.now();
  const parent = path.dirname(dir);
  fs.mkdirSync(parent, { recursive: true });
  // Staging folder renamed at the end: an interrupted run leaves no half-installed folder, and two
  // runs at once cannot mix their files.
  const staging = fs.mkdtempSync(path.join(parent, `.${path.basename(dir)}.staging-`));
  const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'client-tools-agents-'));
  try {
    log(`[provision] installing ${agent.pkg}@${agent.version} into ${dir}`);
    await npmInstall(staging, `${agent.pkg}@${agent.version}`, tmpDir, log);
    const entry = path.join(staging, agent.entry);
    if (!fs.existsSync(entry)) throw new Error(`${agent.pkg}@${agent.version} installed, but ${agent.entry} is missing (another platform?)`);
    if (agent.runWith === 'binary') fs.chmodSync(entry, 0o755);
    fs.writeFileSync(path.join(staging, MARKER_FILE), `${JSON.stringify({ pkg: agent.pkg, version: agent.version, installedAt: new Date().toISOString() }, null, 2)}\n`);
    if (force || !isComplete(dir, agent)) {
      if (fs.existsSync(dir)) {
        const trash = `${dir}.old-${process.pid}-${Date.now()}`;
        fs.renameSync(dir, trash);
        fs.rmSync(trash, { recursive: true, force: true });
      }
      fs.chmodSync(staging, 0o755);
      fs.renameSync(staging, dir);
    }
    log(`[provision] ${agent.pkg}@${agent.version} ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return /** @type {AgentCommand} */ (findAgent(agent));
  } finally {
    fs.rmSync(tmpDir, { recursive: true, force: true });
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * @param {string} prefix
 * @param {string} spec
 * @param {string} tmpDir
 * @param {(line: string) => void} log
 * @returns {Promise<void>}
 */
function npmInstall(prefix, spec, tmpDir, log) {
  // No install scripts: every agent here runs without them (their native parts come as npm
  // platform packages), and nothing may download from outside the registry.
  const args = ['install', '--prefix', prefix, '--omit=dev', '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock', '--save-exact', spec];
  const env = { ...process.env, TMPDIR: tmpDir, npm_config_update_notifier: 'false', npm_config_yes: 'true', npm_config_progress: 'false' };
  log(`[provision] npm ${args.join(' ')}`);
  return new Promise((resolve, reject) => {
    // npm's output goes to stderr, so a caller's stdout stays free.
    const child = spawn('npm', args, { env, stdio: ['ignore', process.stderr, process.stderr] });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`npm install of ${spec} failed (${signal ?? `exit code ${code}`}); see the npm output above`));
    });
  });
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  try {
    const names = process.argv.slice(2).filter((a) => !a.startsWith('--'));
    const chosen = names.length > 0 ? names.map(agentNamed) : AGENTS;
    for (const agent of chosen) {
      const found = await provisionAgent(agent, { force: process.argv.includes('--force') });
      console.log(`${found.name}\t${found.command} ${found.args.join(' ')}`);
    }
  } catch (error) {
    console.error(`[provision] ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
}
