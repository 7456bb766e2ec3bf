/**
 * `clientTools.agents` parsed entry by entry (src/agents/agentSettings.ts), the presets found on PATH
 * or in npm's npx cache (agentPresets.ts), which agent each thread talks to (threadAgents.ts), and
 * what the picker and the status line show (agentChoice.ts).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AgentChoice } from '../../../src/agents/agentChoice';
import { findCommand, findPresetAgents } from '../../../src/agents/agentPresets';
import { MAX_AGENTS, parseAgentSettings } from '../../../src/agents/agentSettings';
import { BACKEND, MAX_BOUND_THREADS, ThreadAgents } from '../../../src/agents/threadAgents';

describe('agent settings: clientTools.agents', () => {
  it('takes name, command, args and env', () => {
    assert.deepEqual(parseAgentSettings([{ name: 'Gemini', command: 'gemini', args: ['--acp'], env: { GEMINI_API_KEY: 'k' } }]), {
      agents: [{ name: 'Gemini', command: 'gemini', args: ['--acp'], env: { GEMINI_API_KEY: 'k' } }],
      problems: [],
    });
  });

  it('skips a bad entry with the reason and keeps the others', () => {
    const parsed = parseAgentSettings([
      { name: '<img src=x>', command: 'a' },
      { name: 'Ok', command: 'ok' },
      { name: 'Newline', command: 'a\nrm -rf /' },
      { name: 'Env', command: 'a', env: { 'BAD-KEY': 'x' } },
      { name: 'Extra', command: 'a', shell: true },
      { name: 'ok', command: 'again' },
      'not an object',
    ]);
    assert.deepEqual(parsed.agents.map((a) => a.name), ['Ok']);
    assert.equal(parsed.problems.length, 6);
    assert.match(parsed.problems[0] ?? '', /^clientTools\.agents\[0\]: name: /);
    assert.match(parsed.problems[1] ?? '', /^clientTools\.agents\[2\]: command: must not contain control characters/);
    assert.match(parsed.problems[4] ?? '', /^clientTools\.agents\[5\]: the name "ok" is used already/);
  });

  it('caps the list and refuses a value that is not a list', () => {
    const many = Array.from({ length: MAX_AGENTS + 5 }, (_, i) => ({ name: `A${i}`, command: 'x' }));
    const parsed = parseAgentSettings(many);
    assert.equal(parsed.agents.length, MAX_AGENTS);
    assert.match(parsed.problems.at(-1) ?? '', /only the first 32/);
    assert.deepEqual(parseAgentSettings({ name: 'x' }), { agents: [], problems: ['clientTools.agents must be a list of agents'] });
    assert.deepEqual(parseAgentSettings(undefined), { agents: [], problems: [] });
  });
});

describe('agent presets: found where they are installed, never downloaded', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'client-tools-presets-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const executable = (file: string) => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, '#!/bin/sh\n');
    fs.chmodSync(file, 0o755);
    return file;
  };

  it('finds a command on PATH, only executable files in absolute folders', () => {
    const bin = path.join(dir, 'bin');
    executable(path.join(bin, 'gemini'));
    fs.writeFileSync(path.join(bin, 'codex-acp'), 'not executable');
    const env = { PATH: ['relative/bin', bin].join(path.delimiter) };
    assert.equal(findCommand('gemini', { env, home: dir }), path.join(bin, 'gemini'));
    assert.equal(findCommand('codex-acp', { env, home: dir }), undefined);
  });

  it('finds a command in the npx cache, the most recently installed one', () => {
    const older = executable(path.join(dir, '.npm', '_npx', 'aaa', 'node_modules', '.bin', 'claude-code-acp'));
    const newer = executable(path.join(dir, '.npm', '_npx', 'bbb', 'node_modules', '.bin', 'claude-code-acp'));
    fs.utimesSync(older, new Date(1_000_000), new Date(1_000_000));
    assert.equal(findCommand('claude-code-acp', { env: { PATH: '' }, home: dir }), newer);
  });

  it('offers each preset whose command is found, with its ACP arguments', () => {
    const bin = path.join(dir, 'bin');
    executable(path.join(bin, 'opencode'));
    executable(path.join(bin, 'claude-agent-acp'));
    const found = findPresetAgents({ env: { PATH: bin }, home: dir });
    assert.deepEqual(found.map((a) => [a.name, path.basename(a.command), a.args]), [['Claude Code', 'claude-agent-acp', []], ['opencode', 'opencode', ['acp']]]);
  });
});

describe('thread agents: which agent each thread talks to', () => {
  const memory = () => {
    let value: unknown;
    return { get: () => value, set: (v: unknown) => (value = v) };
  };

  it('keeps the agent and its session id across a reload, and forgets a deleted thread', () => {
    const store = memory();
    const a = new ThreadAgents(store);
    a.bind('t1', 'Claude Code');
    a.setSession('t1', 'Claude Code', 's-1');
    a.bind('t2', BACKEND);
    const b = new ThreadAgents(store);
    assert.deepEqual(b.get('t1'), { agent: 'Claude Code', sessionId: 's-1' });
    assert.deepEqual(b.get('t2'), { agent: BACKEND });
    b.bind('t1', 'Claude Code');
    assert.equal(b.get('t1')?.sessionId, 's-1', 'binding to the same agent keeps the session');
    b.bind('t1', 'Gemini CLI');
    assert.deepEqual(b.get('t1'), { agent: 'Gemini CLI' });
    b.forget('t1');
    assert.equal(new ThreadAgents(store).get('t1'), undefined);
  });

  it('is bounded, and drops stored entries that do not read as bindings', () => {
    const store = memory();
    const a = new ThreadAgents(store);
    for (let i = 0; i < MAX_BOUND_THREADS + 10; i++) a.bind(`t${i}`, 'X');
    assert.equal(a.get('t0'), undefined);
    assert.ok(a.get(`t${MAX_BOUND_THREADS + 9}`));
    store.set({ ok: { agent: 'X', sessionId: 's' }, bad: { agent: 42 }, worse: 'x', long: { agent: 'y'.repeat(300) } });
    const b = new ThreadAgents(store);
    assert.deepEqual(b.get('ok'), { agent: 'X', sessionId: 's' });
    assert.equal(b.get('bad'), undefined);
    assert.equal(b.get('worse'), undefined);
    assert.equal(b.get('long'), undefined);
  });
});

describe('agent choice: which agent answers in which conversation', () => {
  const memory = () => {
    let value: unknown;
    return { get: () => value, set: (v: unknown) => (value = v) };
  };
  const make = () => {
    const bindings = new ThreadAgents(memory());
    let picked: string | undefined;
    const choice = new AgentChoice(bindings, { get: () => picked, set: (n) => (picked = n) });
    return { bindings, choice };
  };
  const claude = { name: 'Claude Code', command: '/bin/claude-code-acp', args: [], env: {} };
  const gemini = { name: 'Gemini CLI', command: '/bin/gemini', args: ['--acp'], env: {} };

  it('offers configured agents first, a configured name replacing a preset, and says which changed', () => {
    const { choice } = make();
    assert.deepEqual(choice.setAgents([], [claude, gemini]), []);
    const mine = { name: 'claude code', command: '/opt/claude', args: [], env: {} };
    assert.deepEqual(choice.setAgents([mine], [claude, gemini]), ['Claude Code']);
    assert.deepEqual(choice.agents.map((a) => a.command), ['/opt/claude', '/bin/gemini']);
    assert.deepEqual(choice.pickerOptions(), [{ name: 'claude code', detail: '/opt/claude' }, { name: 'Gemini CLI', detail: '/bin/gemini --acp' }]);
  });

  it('a thread with no message follows the agent picked last; one with messages keeps its agent', () => {
    const { bindings, choice } = make();
    choice.setAgents([], [claude, gemini]);
    assert.equal(choice.agentOf('t1'), BACKEND, 'the backend by default');
    assert.deepEqual(choice.pick('Claude Code', 't1'), { accepted: true, newConversation: false });
    assert.equal(choice.agentOf('t1'), 'Claude Code');
    bindings.bind('t1', 'Claude Code');
    assert.deepEqual(choice.pick('Gemini CLI', 't1'), { accepted: true, newConversation: true }, 'another agent gets a new conversation');
    assert.equal(choice.agentOf('t1'), 'Claude Code');
    assert.equal(choice.agentOf('t2'), 'Gemini CLI');
    assert.deepEqual(choice.pick('Not Offered', 't2'), { accepted: false, newConversation: false });
    assert.deepEqual(choice.pick(BACKEND, 't2'), { accepted: true, newConversation: false });
  });

  it('the usage the agent reports (usage_update) is the conversation\'s: another thread with the same agent shows its own', () => {
    const { bindings, choice } = make();
    choice.setAgents([], [claude]);
    bindings.bind('t1', 'Claude Code');
    bindings.bind('t2', 'Claude Code');
    choice.noteStatus('Claude Code', { context: { used: 50_000, size: 200_000 } }, 't1');
    assert.equal(choice.statusOf('t1')?.usage, 'Context 25%');
    assert.equal(choice.statusOf('t2')?.usage, undefined);
    choice.noteStatus('Claude Code', { context: { used: 1_000, size: 200_000, cost: { amount: 1.5, currency: 'USD' } } }, 't2');
    assert.equal(choice.statusOf('t2')?.usage, 'Context 1% · 1.50 USD');
    assert.equal(choice.statusOf('t1')?.usage, 'Context 25%');
    choice.forgetThread('t1');
    assert.equal(choice.statusOf('t1')?.usage, undefined);
  });

  it('the status line names the agent and its mode; an agent no longer on offer says so', () => {
    const { bindings, choice } = make();
    choice.setAgents([], [claude]);
    bindings.bind('t1', 'Claude Code');
    assert.deepEqual(choice.statusOf('t1'), { connection: 'connected', model: 'Claude Code' });
    choice.noteStatus('Claude Code', { modes: { current: 'default', available: [{ id: 'default', name: 'Default' }, { id: 'plan', name: 'Plan' }] } });
    choice.noteStatus('Claude Code', { currentMode: 'plan' });
    assert.deepEqual(choice.statusOf('t1'), { connection: 'connected', model: 'Claude Code · Plan' });
    choice.noteStatus('Claude Code', { context: { used: 12300, size: 200000, cost: { amount: 0.0123, currency: 'USD' } }, commands: [{ name: 'compact', description: '' }, { name: 'init', description: '' }] }, 't1');
    assert.equal(choice.statusOf('t1')?.detail, '12,300 of 200,000 context tokens used (0.01 USD so far) · Commands: /compact, /init');
    assert.equal(choice.statusOf('t1')?.usage, 'Context 6% · 0.01 USD');
    choice.noteStatus('Claude Code', { context: { used: 150, size: 1_000_000, cost: { amount: 0.00135, currency: 'USD' } } }, 't1');
    assert.equal(choice.statusOf('t1')?.usage, 'Context 0% · 0.0014 USD', 'a small cost keeps two significant digits');
    choice.setAgents([], []);
    assert.equal(choice.statusOf('t1')?.connection, 'disconnected');
    assert.equal(choice.statusOf('t9'), undefined, 'a backend thread');
  });
});
