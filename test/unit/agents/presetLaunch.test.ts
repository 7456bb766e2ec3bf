/**
 * The presets' launches (src/agents/presetLaunch.ts): which agent gets which, and how its files are
 * written. What each launch makes the real agent do is test/agents/preset-launch.agent.test.ts.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { launchOf, presetLaunchFor } from '../../../src/agents/agentPresets';
import { PLAIN_LAUNCH, PRESET_LAUNCHES, prepareLaunch } from '../../../src/agents/presetLaunch';

describe('preset launches', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'client-tools-launch-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a configured agent whose program is a preset\'s gets that preset\'s launch; anything else none', () => {
    assert.equal(presetLaunchFor('/usr/local/bin/gemini'), PRESET_LAUNCHES['@google/gemini-cli']);
    assert.equal(presetLaunchFor('opencode'), PRESET_LAUNCHES['opencode-ai']);
    assert.equal(presetLaunchFor('C:\\tools\\codex-acp.exe'), PRESET_LAUNCHES['@zed-industries/codex-acp']);
    assert.equal(presetLaunchFor('/usr/bin/node'), undefined);
    assert.equal(launchOf({ name: 'Mine', command: '/opt/my-agent', args: [], env: {} }), PLAIN_LAUNCH);
    assert.equal(launchOf({ name: 'Gemini (flash)', command: '/usr/bin/gemini', args: ['--acp'], env: {} }), PRESET_LAUNCHES['@google/gemini-cli']);
  });

  it('every preset command has a launch', () => {
    for (const pkg of ['@zed-industries/claude-code-acp', '@agentclientprotocol/claude-agent-acp', '@google/gemini-cli', '@zed-industries/codex-acp', 'opencode-ai']) {
      assert.ok(PRESET_LAUNCHES[pkg], pkg);
    }
  });

  it('only Gemini CLI (which carries on after a denial) has its turn ended at a Deny with a reason; a user\'s own agent does not', () => {
    const ending = Object.entries(PRESET_LAUNCHES).filter(([, l]) => l.endTurnAtReasonedDeny === true).map(([pkg]) => pkg);
    assert.deepEqual(ending, ['@google/gemini-cli']);
    assert.equal(PLAIN_LAUNCH.endTurnAtReasonedDeny, undefined);
  });

  it('writes the files into a private folder (0700, files 0600, replaced whole) and fills in ${launchDir}', () => {
    const folder = path.join(dir, 'Gemini_CLI');
    fs.mkdirSync(folder, { mode: 0o700 });
    fs.writeFileSync(path.join(folder, 'gemini-policy.toml'), 'stale and much longer than the new policy '.repeat(100));
    const launch = prepareLaunch(PRESET_LAUNCHES['@google/gemini-cli'] ?? PLAIN_LAUNCH, folder);
    assert.deepEqual(launch.args, ['--admin-policy', path.join(folder, 'gemini-policy.toml')]);
    const written = fs.readFileSync(path.join(folder, 'gemini-policy.toml'), 'utf8');
    assert.match(written, /toolName = "run_shell_command"\nargsPattern = "\.\*"\ndecision = "ask_user"/);
    assert.doesNotMatch(written, /stale/);
    assert.equal(fs.statSync(path.join(folder, 'gemini-policy.toml')).mode & 0o777, 0o600);
    const fresh = path.join(dir, 'new', 'folder');
    prepareLaunch({ ...PLAIN_LAUNCH, files: { 'a.txt': 'a' } }, fresh);
    assert.equal(fs.statSync(fresh).mode & 0o777, 0o700);
  });

  it('opencode\'s permissions ask before each read, search, edit and command', () => {
    const env = prepareLaunch(PRESET_LAUNCHES['opencode-ai'] ?? PLAIN_LAUNCH, dir).env;
    const permission = JSON.parse(env.OPENCODE_PERMISSION ?? '{}') as Record<string, string>;
    for (const key of ['read', 'edit', 'glob', 'grep', 'list', 'bash', 'webfetch', 'external_directory']) assert.equal(permission[key], 'ask', key);
  });
});
