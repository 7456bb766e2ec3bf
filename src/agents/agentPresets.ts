/**
 * Presets for the ACP agents this project tests (docs/AGENTS.md says what the gate sees of each):
 * offered in the chat's agent picker when their command is installed, on PATH or in npm's `npx`
 * cache. Nothing is downloaded: an agent that is not installed is simply not offered.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AgentSpec } from './agentSettings';
import { PLAIN_LAUNCH, PRESET_LAUNCHES, type AgentLaunch } from './presetLaunch';

export interface AgentPreset {
  /** The name the picker shows (the agent's id). */
  name: string;
  /** Commands that start it in ACP mode, in order of preference, with their arguments. */
  commands: { bin: string; args: string[]; npmPackage: string }[];
}

export const AGENT_PRESETS: readonly AgentPreset[] = [
  {
    name: 'Claude Code',
    commands: [
      // Routes reads, writes and shell commands through the client (fs/*, terminal/*): the gate sees them all.
      { bin: 'claude-code-acp', args: [], npmPackage: '@zed-industries/claude-code-acp' },
      { bin: 'claude-agent-acp', args: [], npmPackage: '@agentclientprotocol/claude-agent-acp' },
    ],
  },
  { name: 'Gemini CLI', commands: [{ bin: 'gemini', args: ['--acp'], npmPackage: '@google/gemini-cli' }] },
  { name: 'Codex', commands: [{ bin: 'codex-acp', args: [], npmPackage: '@zed-industries/codex-acp' }] },
  { name: 'opencode', commands: [{ bin: 'opencode', args: ['acp'], npmPackage: 'opencode-ai' }] },
];

/**
 * The preset launch for a configured agent whose command is a preset's (`gemini`, `codex-acp`, …,
 * by the program's file name): the user's own entry for Gemini CLI gets the same gate as the preset.
 */
export function presetLaunchFor(command: string): AgentLaunch | undefined {
  const program = (command.split(/[\\/]/).pop() ?? '').replace(/\.exe$/i, '');
  for (const preset of AGENT_PRESETS) {
    for (const c of preset.commands) if (c.bin === program) return PRESET_LAUNCHES[c.npmPackage];
  }
  return undefined;
}

/** What the extension adds to an agent's launch: its preset's, a preset command's, else nothing. */
export function launchOf(spec: AgentSpec): AgentLaunch {
  return spec.launch ?? presetLaunchFor(spec.command) ?? PLAIN_LAUNCH;
}

export interface FindOptions {
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  home?: string;
}

/** The presets whose command is installed, as agents (their first installed command). */
export function findPresetAgents(options: FindOptions = {}): AgentSpec[] {
  const found: AgentSpec[] = [];
  for (const preset of AGENT_PRESETS) {
    for (const c of preset.commands) {
      const command = findCommand(c.bin, options);
      if (command) {
        const launch = PRESET_LAUNCHES[c.npmPackage];
        found.push({ name: preset.name, command, args: [...c.args], env: {}, preset: c.npmPackage, ...(launch ? { launch } : {}) });
        break;
      }
    }
  }
  return found;
}

/** An executable named `bin` on PATH, else in npm's `npx` cache (the most recently installed). */
export function findCommand(bin: string, options: FindOptions = {}): string | undefined {
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  // Without a shell a Windows `.cmd` shim cannot be started, so only an `.exe` is offered there.
  const names = platform === 'win32' ? [`${bin}.exe`] : [bin];
  for (const dir of (env.PATH ?? env.Path ?? '').split(path.delimiter)) {
    if (!dir || !path.isAbsolute(dir)) continue;
    for (const name of names) {
      const candidate = path.join(dir, name);
      if (isExecutable(candidate, platform)) return candidate;
    }
  }
  const npmCache = env.npm_config_cache ?? path.join(options.home ?? os.homedir(), platform === 'win32' ? path.join('AppData', 'Local', 'npm-cache') : '.npm');
  const npx = path.join(npmCache, '_npx');
  let newest: { path: string; mtime: number } | undefined;
  let entries: string[] = [];
  try {
    entries = fs.readdirSync(npx);
  } catch {
    return undefined;
  }
  for (const entry of entries.slice(0, 500)) {
    for (const name of names) {
      const candidate = path.join(npx, entry, 'node_modules', '.bin', name);
      if (!isExecutable(candidate, platform)) continue;
      const mtime = fs.statSync(candidate).mtimeMs;
      if (!newest || mtime > newest.mtime) newest = { path: candidate, mtime };
    }
  }
  return newest?.path;
}

function isExecutable(file: string, platform: NodeJS.Platform): boolean {
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile()) return false;
    if (platform !== 'win32') fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The absolute path a configured command runs as: an absolute path as it is, a bare name looked up
 * in PATH's absolute folders only (a relative PATH entry such as `.` would find a program the
 * workspace planted), anything else (a relative path) refused. Undefined when there is none.
 */
export function resolveCommand(command: string, options: FindOptions = {}): string | undefined {
  if (path.isAbsolute(command)) return command;
  if (command.includes('/') || command.includes('\\')) return undefined;
  return findCommand(command, options);
}
