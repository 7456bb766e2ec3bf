/**
 * One call, three front doors, one decision: the backend over the WebSocket (ClientCore's own
 * dispatcher), a program calling the editor's MCP server (`McpCalls` over `createDispatcher`) and
 * an ACP agent's `fs/read_text_file` (`gateCallbacks`) reach the same consent decision for the
 * same tool, target and caller state, because each only names its caller and asks the one consent
 * module (src/core/consent/consent.ts). A caller cannot pick the door that asks less.
 */
import * as assert from 'node:assert/strict';
import { gateCallbacks } from '../../src/agents/dispatcherCallbacks';
import { CallerLifetime } from '../../src/core/consent/callerLifetime';
import type { BackgroundCallPolicy, CallRecord } from '../../src/core/callRecord';
import { McpCalls } from '../../src/core/mcpServer/mcpCalls';
import { CodedError } from '../../src/protocol';
import { CoreRig, SECRET, until } from './support/core-rig';

type Door = 'backend' | 'mcp' | 'agent';
const DOORS: readonly Door[] = ['backend', 'mcp', 'agent'];
const THREAD = 'thread-doors';

/** What a door's caller got, and the record the chat was given of the call. */
interface Outcome {
  ok: boolean;
  code?: string;
  leaked: boolean;
  record: CallRecord | undefined;
}

describe('consent: the WebSocket, the editor MCP server and an ACP agent reach one decision for one call', () => {
  let rig: CoreRig;
  let mcp: McpCalls;
  const records: Record<Door, CallRecord[]> = { backend: [], mcp: [], agent: [] };
  /** Whether a run the user started carries the next call, on every door. */
  let userRun = true;

  beforeEach(async () => {
    for (const d of DOORS) records[d] = [];
    rig = await CoreRig.start();
    await rig.connect();
    rig.core.onCallRecord((r) => records.backend.push(r));
    mcp = new McpCalls((o) => rig.core.createDispatcher(o), () => userRun);
    mcp.onCallRecord((r) => records.mcp.push(r));
  });
  afterEach(async () => {
    mcp.dispose();
    await rig.dispose();
  });

  /**
   * The user's chat message went out on THREAD and its run started: the backend's calls there are
   * the user's, as are the agent's during its turn and the MCP calls of the agent's own server.
   * Background calls are off meanwhile, so a door that lost the caller's state would refuse.
   */
  async function startUserRun(): Promise<void> {
    rig.core.setBackgroundCalls('deny');
    const from = rig.backend.received.length;
    rig.core.sendUserMessage(THREAD, 'look at the files');
    await rig.backend.waitFor((m) => m.type === 'userMessage', 5000, from);
    rig.backend.send({ type: 'runStarted', threadId: THREAD, runId: 'run-1', model: 'none' });
    await until(() => rig.core['userRuns'].isUserRun(THREAD), 'the user run is known');
  }

  /** ReadFile of `relative` through `door`, the caller in the state `userRun` says. */
  async function readThrough(door: Door, relative: string): Promise<Outcome> {
    const last = () => records[door].at(-1);
    if (door === 'backend') {
      const response = await rig.backend.call('ReadFile', { path: relative }, userRun ? { threadId: THREAD } : {});
      const text = JSON.stringify(response);
      await until(() => last()?.status !== 'pending' && last()?.status !== 'awaiting-permission' && last()?.status !== 'running', 'the final record');
      return { ok: response.success, ...(response.success ? {} : { code: response.errorCode }), leaked: text.includes(SECRET), record: last() };
    }
    if (door === 'mcp') {
      const response = await mcp.call('ReadFile', { path: relative }, { caller: 'probe-client', lifetime: new CallerLifetime() });
      return { ok: response.success, ...(response.success ? {} : { code: response.errorCode }), leaked: JSON.stringify(response).includes(SECRET), record: last() };
    }
    const callbacks = gateCallbacks(rig.core, rig.host, rig.logger, (r) => records.agent.push(r))({ agent: 'Test Agent', threadId: THREAD, isRunning: () => userRun });
    try {
      const { content } = await callbacks.readTextFile({ path: rig.file(relative) }, new AbortController().signal);
      return { ok: true, leaked: content.includes(SECRET), record: last() };
    } catch (e) {
      return { ok: false, code: e instanceof CodedError ? e.code : String(e), leaked: false, record: last() };
    } finally {
      callbacks.dispose();
    }
  }

  /** The parts of the outcome that make the decision: the same on every door. */
  const decisionOf = (o: Outcome) => ({ ok: o.ok, code: o.code, status: o.record?.status, permission: o.record?.permission, leaked: o.leaked });

  async function sameOnEveryDoor(relative: string, expected: ReturnType<typeof decisionOf>, background?: BackgroundCallPolicy): Promise<void> {
    if (background !== undefined) rig.core.setBackgroundCalls(background);
    for (const door of DOORS) {
      const before = rig.host.prompts.length;
      const outcome = await readThrough(door, relative);
      assert.deepEqual(decisionOf(outcome), expected, `${door}: ${JSON.stringify(outcome.record)}`);
      assert.equal(outcome.record?.toolName, 'ReadFile', door);
      assert.ok(rig.host.prompts.length - before <= 1, `${door} asked at most once`);
    }
  }

  it('T-DOOR-01: an ordinary file in the user\'s run is read on every door without a prompt', async () => {
    await startUserRun();
    await sameOnEveryDoor('notes.txt', { ok: true, code: undefined, status: 'succeeded', permission: undefined, leaked: false });
    assert.equal(rig.host.prompts.length, 0);
  });

  it('T-DOOR-02: a protected file in the user\'s run asks on every door, with the same line and no remembered choice; denied, nothing is read', async () => {
    await startUserRun();
    rig.host.answerPrompts({ answer: 'deny', reason: 'no secrets' });
    await sameOnEveryDoor('.env', { ok: false, code: 'PERMISSION_DENIED', status: 'denied', permission: { decision: 'denied', via: 'user' }, leaked: false });
    assert.equal(rig.host.prompts.length, 3);
    assert.equal(new Set(rig.host.prompts.map((p) => p.message)).size, 1, 'the same line on every door');
    assert.deepEqual(rig.host.prompts.map((p) => p.offerAllowSession), [false, false, false]);
    assert.equal(rig.host.io.filter((o) => o.op === 'readFile').length, 0, 'nothing read');
  });

  it('T-DOOR-03: the user\'s Deny policy for ReadFile refuses the protected read on every door without a prompt', async () => {
    await startUserRun();
    const key = rig.core.registry.get('ReadFile')?.key;
    assert.ok(key);
    rig.core.permissions.setToolPolicies({ get: (k) => (k === key ? 'deny' : undefined) });
    await sameOnEveryDoor('.env', { ok: false, code: 'PERMISSION_DENIED', status: 'denied', permission: { decision: 'denied', via: 'policy' }, leaked: false });
    assert.equal(rig.host.prompts.length, 0);
  });

  it('T-DOOR-04: outside a run the user started, backgroundCalls "deny" refuses on every door before anything is read or asked', async () => {
    userRun = false;
    try {
      await sameOnEveryDoor('notes.txt', { ok: false, code: 'PERMISSION_DENIED', status: 'denied', permission: { decision: 'denied', via: 'backgroundCalls' }, leaked: false }, 'deny');
      assert.equal(rig.host.prompts.length, 0);
      assert.equal(rig.host.io.filter((o) => o.op === 'readFile').length, 0);
    } finally {
      userRun = true;
    }
  });

  it('T-DOOR-05: outside a run the user started, backgroundCalls "ask" asks on every door even for an ordinary file, saying who asks', async () => {
    userRun = false;
    try {
      rig.host.answerPrompts('allow');
      await sameOnEveryDoor('notes.txt', { ok: true, code: undefined, status: 'succeeded', permission: { decision: 'allowed', via: 'prompt' }, leaked: false }, 'ask');
      const [backend, mcpPrompt, agent] = rig.host.prompts;
      assert.match(backend?.message ?? '', /^Background request: /);
      assert.match(mcpPrompt?.message ?? '', /^probe-client request: /);
      assert.match(agent?.message ?? '', /^Test Agent request: /);
      assert.deepEqual(rig.host.prompts.map((p) => p.offerAllowSession), [false, false, false]);
    } finally {
      userRun = true;
    }
  });
});
