/**
 * The chat's agents in plain Node (src/agents/agentChats.ts) with scripted agent processes: the
 * first message starts the agent and opens the thread's session, later ones reuse it, a reload
 * resumes or loads it where the agent offers that (and delivers a Deny's reason kept from before it),
 * an agent that died is started again, Stop cancels, a deleted thread's session ends, and a missing
 * command is AGENT_UNAVAILABLE.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AgentChats, withEditorContext } from '../../../src/agents/agentChats';
import type { AgentSpec } from '../../../src/agents/agentSettings';
import { ThreadAgents } from '../../../src/agents/threadAgents';
import type { CallRecord } from '../../../src/core/callRecord';
import { ClientCore } from '../../../src/core/clientCore';
import type { RunEvent } from '../../../src/protocol';
import { registerBuiltinGroups } from '../../../src/tools';
import { scriptedProgram, type LogEntry } from '../../support/agents/acp-harness';
import type { AgentScript } from '../../support/agents/scripted-agent';
import { RecordingLogger } from '../../support/dispatch-harness';
import { createTempWorkspace, type TempWorkspace } from '../../support/fake-host';

const THREAD = '00000000-0000-4000-8000-0000000000aa';

describe('agent chats: agents and sessions behind the chat\'s threads', () => {
  let ws: TempWorkspace;
  let core: ClientCore;
  let dir: string;
  let store: { get(): unknown; set(v: unknown): void };
  const opened: AgentChats[] = [];
  let events: { event: RunEvent; agent: string }[];
  let records: CallRecord[];

  beforeEach(async () => {
    ws = await createTempWorkspace(['ws'], { 'a.txt': 'hello\n' });
    core = new ClientCore({ url: '', token: '', clientInfo: { name: 't', version: '1', ide: 'Fake' }, host: ws.host, presenter: ws.host, logger: new RecordingLogger() });
    registerBuiltinGroups(core.registry);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'client-tools-chats-'));
    let value: unknown;
    store = { get: () => value, set: (v) => (value = v) };
    events = [];
    records = [];
  });
  afterEach(async () => {
    for (const c of opened.splice(0)) c.dispose();
    core.dispose();
    await ws.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const chats = (): AgentChats => {
    const c = new AgentChats({
      core,
      workspace: ws.host,
      bindings: new ThreadAgents(store),
      logger: new RecordingLogger(),
      clientInfo: { name: 'test', version: '1' },
      emit: (event, agent) => events.push({ event, agent }),
      onRecord: (r) => records.push(r),
      launchDir: path.join(dir, 'launch'),
    });
    opened.push(c);
    return c;
  };
  const spec = (script: AgentScript, name = 'Scripted'): AgentSpec => {
    const program = scriptedProgram(script, path.join(dir, `${name}.jsonl`));
    return { name, command: program.command, args: program.args, env: program.env };
  };
  const log = (name = 'Scripted'): LogEntry[] => fs.readFileSync(path.join(dir, `${name}.jsonl`), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as LogEntry);
  const texts = () => events.filter((e) => e.event.type === 'textDelta').map((e) => (e.event as { text: string }).text);
  const chunk = (text: string) => ({ update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } });

  it('starts the agent on the first message, reuses its session for the next, names the agent on every event', async () => {
    const c = chats();
    const s = spec({ turns: [[chunk('one')], [chunk('two')]] });
    await c.send(THREAD, s, 'first');
    await c.send(THREAD, s, 'second');
    assert.deepEqual(texts(), ['one', 'two']);
    assert.ok(events.every((e) => e.agent === 'Scripted'));
    assert.equal(log().filter((e) => e.method === 'initialize').length, 1);
    assert.equal(log().filter((e) => e.method === 'session/new').length, 1);
    const prompts = log().filter((e) => e.method === 'session/prompt').map((e) => e.params?.prompt);
    assert.deepEqual(prompts, [[{ type: 'text', text: 'first' }], [{ type: 'text', text: 'second' }]]);
    assert.deepEqual(new ThreadAgents(store).get(THREAD), { agent: 'Scripted', sessionId: 'session-1' });
  });

  it('starts an agent with its launch: arguments after its own, variables under the user\'s, files in its launch folder, _meta on session/new and session/resume', async () => {
    const base = spec({ capabilities: { sessionCapabilities: { resume: {} } }, turns: [[chunk('one')], [chunk('two')]] });
    const launched: AgentSpec = {
      ...base,
      env: { ...base.env, SCRIPTED_AGENT_ECHO: 'GATE_FILE,GATE_MODE', GATE_MODE: 'the user\'s' },
      launch: {
        args: ['--policy', '${launchDir}/policy.toml'],
        env: { GATE_FILE: '${launchDir}/policy.toml', GATE_MODE: 'the preset\'s' },
        files: { 'policy.toml': 'ask = true\n' },
        sessionMeta: { claudeCode: { options: { disallowedTools: ['Grep'] } } },
        mcpTools: 'flat',
      },
    };
    const first = chats();
    await first.send(THREAD, launched, 'one');
    first.dispose();
    await chats().send(THREAD, launched, 'two');
    const started = log().find((e) => 'pid' in e) as unknown as { argv: string[]; env: Record<string, string> };
    const folder = path.join(dir, 'launch', 'Scripted');
    assert.deepEqual(started.argv.slice(-2), ['--policy', path.join(folder, 'policy.toml')]);
    assert.deepEqual(started.env, { GATE_FILE: path.join(folder, 'policy.toml'), GATE_MODE: 'the user\'s' });
    assert.equal(fs.readFileSync(path.join(folder, 'policy.toml'), 'utf8'), 'ask = true\n');
    assert.equal(fs.statSync(path.join(folder, 'policy.toml')).mode & 0o777, 0o600);
    assert.equal(fs.statSync(folder).mode & 0o777, 0o700);
    const meta = { claudeCode: { options: { disallowedTools: ['Grep'] } } };
    assert.deepEqual(log().find((e) => e.method === 'session/new')?.params?._meta, meta);
    assert.deepEqual(log().find((e) => e.method === 'session/resume')?.params?._meta, meta);
  });

  it('after a reload, resumes the thread\'s session where the agent offers it (and says nothing of it)', async () => {
    const s = spec({ capabilities: { sessionCapabilities: { resume: {} } }, turns: [[chunk('before')], [chunk('after')]] });
    const first = chats();
    await first.send(THREAD, s, 'one');
    first.dispose();
    const second = chats();
    await second.send(THREAD, s, 'two');
    const resumed = log().filter((e) => e.method === 'session/resume');
    assert.equal(resumed.length, 1);
    assert.equal(resumed[0]?.params?.sessionId, 'session-1');
    assert.equal(events.some((e) => e.event.type === 'toolCallStarted'), false, 'no "new session" card');
  });

  it('after a reload, loads the session where the agent offers only that; its replayed history is not shown again', async () => {
    const s = spec({ capabilities: { loadSession: true }, loadReplay: [{ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'REPLAYED' } }], turns: [[chunk('a')], [chunk('b')]] });
    const first = chats();
    await first.send(THREAD, s, 'one');
    first.dispose();
    await chats().send(THREAD, s, 'two');
    assert.equal(log().filter((e) => e.method === 'session/load').length, 1);
    assert.equal(texts().includes('REPLAYED'), false);
  });

  it('an agent that can neither resume nor load starts afresh and the run says so first', async () => {
    const s = spec({ turns: [[chunk('a')], [chunk('b')]] });
    const first = chats();
    await first.send(THREAD, s, 'one');
    first.dispose();
    events = [];
    await chats().send(THREAD, s, 'two');
    const card = events.find((e) => e.event.type === 'toolCallStarted')?.event as { toolName: string } | undefined;
    assert.equal(card?.toolName, 'Started a new session');
  });

  it('an agent that died is started again by the next message', async () => {
    const s = spec({ turns: [[{ exit: 1 }], [chunk('back')]] });
    const c = chats();
    await c.send(THREAD, s, 'one');
    assert.equal((events.find((e) => e.event.type === 'runError')?.event as { code: string } | undefined)?.code, 'AGENT_EXITED');
    await c.send(THREAD, s, 'two');
    assert.equal(log().filter((e) => e.method === 'initialize').length, 2, 'a second process');
    assert.deepEqual(events.filter((e) => e.event.type === 'runFinished').map((e) => (e.event as { reason: string }).reason), ['error', 'completed']);
    assert.deepEqual(texts(), ['back']);
  });

  it('Stop cancels the thread\'s turn', async () => {
    const s = spec({ turns: [[{ hang: true, untilCancel: true }]] });
    const c = chats();
    const turn = c.send(THREAD, s, 'go');
    while (!c.isRunning(THREAD)) await new Promise((r) => setTimeout(r, 20));
    assert.equal(c.stop(THREAD), true);
    await turn;
    assert.equal((events.find((e) => e.event.type === 'runFinished')?.event as { reason: string }).reason, 'cancelled');
    assert.equal(c.stop(THREAD), false, 'nothing left to stop');
  });

  it('a deleted thread\'s session ends and its binding goes', async () => {
    const s = spec({ turns: [[chunk('a')]] });
    const c = chats();
    await c.send(THREAD, s, 'one');
    c.forgetThread(THREAD);
    assert.equal(new ThreadAgents(store).get(THREAD), undefined);
  });

  describe('a Deny\'s reason not yet delivered when the window reloads', () => {
    const OPTIONS = [{ optionId: 'once', name: 'Allow', kind: 'allow_once' }, { optionId: 'no', name: 'Reject', kind: 'reject_once' }];
    /** A command asked for and denied with a reason, then a turn that goes on until the reload ends it. */
    const deniedThenReload = [
      { update: { sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Run npm test', kind: 'execute', status: 'pending', rawInput: { command: 'npm test' } } },
      { call: 'session/request_permission', params: { toolCall: { toolCallId: 't1' }, options: OPTIONS }, as: 't1' },
      { hang: true as const, untilCancel: true },
    ];
    const promptTexts = () => log().filter((e) => e.method === 'session/prompt').map((e) => ((e.params?.prompt ?? []) as { text?: string }[]).map((b) => b.text ?? ''));
    const cards = () => events.filter((e) => e.event.type === 'toolCallStarted').map((e) => e.event as { toolName: string; callId: string });
    const cardText = (callId: string) => {
      const ended = events.find((e) => e.event.type === 'toolCallEnded' && (e.event as { callId: string }).callId === callId)?.event as { content: { type: string; text?: string }[] } | undefined;
      return ended?.content[0]?.text ?? '';
    };

    /** The first window: the reason is given, saved with the thread, and the window goes before the turn ends. */
    const denyAndReload = async (s: AgentSpec) => {
      ws.host.answerPrompts({ answer: 'deny', reason: 'use the\nclean script' });
      const first = chats();
      const turn = first.send(THREAD, s, 'one');
      const deadline = Date.now() + 15_000;
      while (new ThreadAgents(store).get(THREAD)?.declined === undefined && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      first.dispose();
      await turn;
      assert.deepEqual(new ThreadAgents(store).get(THREAD)?.declined, { reasons: [{ kind: 'execute', reason: 'use the clean script' }], earlier: 0 }, 'saved with the thread');
      events = [];
    };

    it('delivered with the next message when the agent loads the thread\'s session: the same words, the same card; then no longer saved', async () => {
      const s = spec({ capabilities: { loadSession: true }, turns: [deniedThenReload, [chunk('ok')]] });
      await denyAndReload(s);
      await chats().send(THREAD, s, 'two');
      assert.equal(log().filter((e) => e.method === 'session/load').length, 1);
      assert.deepEqual(promptTexts()[1], [
        'Sent by the editor, not typed by the user: the user denied a permission request of yours with a reason, which your tool result did not carry.\nThe user declined your request to run a command, with this reason: "use the clean script"',
        'two',
      ]);
      const card = cards()[0];
      assert.equal(card?.toolName, 'Your reason, sent to Scripted');
      assert.match(cardText(card?.callId ?? ''), /with this reason: "use the clean script"$/);
      assert.equal(new ThreadAgents(store).get(THREAD)?.declined, undefined, 'delivered: nothing left to save');
      assert.equal(new ThreadAgents(store).get(THREAD)?.sessionId, 'session-1');
    });

    it('shown as not sent when the agent cannot continue the thread (a new session would not know the request), and not sent to it', async () => {
      const s = spec({ turns: [deniedThenReload, [chunk('ok')]] });
      await denyAndReload(s);
      await chats().send(THREAD, s, 'two');
      assert.deepEqual(promptTexts()[1], ['two']);
      assert.deepEqual(cards().map((c) => c.toolName), ['Started a new session', 'Not sent to Scripted: your reason']);
      const text = cardText(cards()[1]?.callId ?? '');
      assert.match(text, /were not sent/);
      assert.match(text, /- to run a command: "use the clean script"$/);
      assert.equal(new ThreadAgents(store).get(THREAD)?.declined, undefined);
    });
  });

  it('a command that is not there: AGENT_UNAVAILABLE, naming it', async () => {
    await assert.rejects(chats().send(THREAD, { name: 'Ghost', command: path.join(dir, 'no-such-agent'), args: [], env: {} }, 'hi'), (e: { code: string; message: string }) => {
      assert.equal(e.code, 'AGENT_UNAVAILABLE');
      assert.match(e.message, /no-such-agent was not found/);
      return true;
    });
  });

  it('editor text attached to a message reaches the agent fenced, whatever backticks it holds', () => {
    assert.equal(withEditorContext('Why?', undefined), 'Why?');
    const text = withEditorContext('Why?', { file: 'src/a.ts', language: 'typescript', selection: { startLine: 1, startCharacter: 0, endLine: 2, endCharacter: 3 }, selectedText: 'x ``` y' });
    assert.equal(text, 'Why?\n\nSelected in src/a.ts (lines 2-3):\n````typescript\nx ``` y\n````');
  });
});
