/**
 * The agent's requests of the client, made by a scripted agent process over a real ACP stream,
 * answered by `DispatcherCallbacks` through the editor's own tools and permission gate: fs reads
 * are ReadFile, fs writes OpenDiff's per-hunk review, terminals RunInTerminal, permission requests
 * the gate's prompt with the exact target.
 */
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { readFile } from 'node:fs/promises';
import { EDITOR_DECIDES, keepTail, shellQuote, type DispatcherCallbacks } from '../../../src/agents/dispatcherCallbacks';
import { AGENT_NAME, startAcpHarness, type AcpHarness } from '../../support/agents/acp-harness';
import type { ScriptStep } from '../../support/agents/scripted-agent';

const PERMISSION_OPTIONS = [
  { optionId: 'always', name: 'Always allow', kind: 'allow_always' },
  { optionId: 'once', name: 'Allow', kind: 'allow_once' },
  { optionId: 'no', name: 'Reject', kind: 'reject_once' },
];

describe('agent callbacks: the agent\'s requests through the editor\'s tools and gate', () => {
  let h: AcpHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  const start = (turn: ScriptStep[], files: Record<string, string> = { 'a.txt': 'one\ntwo\nthree\n' }): Promise<AcpHarness> =>
    startAcpHarness({ files, script: { turns: [turn] } });
  const callbacksOf = (harness: AcpHarness) => (harness.session as unknown as { callbacks: DispatcherCallbacks }).callbacks;

  it('fs/read_text_file is ReadFile: the text, or the lines asked for', async () => {
    h = await start([
      { call: 'fs/read_text_file', params: { path: '__CWD__/a.txt' }, as: 'all' },
      { call: 'fs/read_text_file', params: { path: '__CWD__/a.txt', line: 2, limit: 1 }, as: 'line2' },
    ]);
    await h.prompt('read');
    assert.deepEqual(h.answer('all')?.result, { content: 'one\ntwo\nthree\n' });
    assert.deepEqual(h.answer('line2')?.result, { content: 'two\n' });
    const reads = h.records.filter((r) => r.toolName === 'ReadFile' && r.status === 'succeeded');
    assert.equal(reads.length, 2);
    assert.equal(reads[0]?.caller, AGENT_NAME, 'the card names the agent');
    assert.equal(reads[0]?.background, false, 'a call during the agent\'s turn is the user\'s, not a background call');
  });

  it('fs/write_text_file is OpenDiff: accepted whole, the file is written and the agent gets success', async () => {
    h = await start([{ call: 'fs/write_text_file', params: { path: '__CWD__/a.txt', content: 'one\nTWO\nthree\n' }, as: 'write' }]);
    const turn = h.prompt('write');
    const diff = await h.ws.host.catalog.nextDiff();
    assert.equal(diff.request.proposed, 'one\nTWO\nthree\n');
    diff.accept();
    await turn;
    assert.deepEqual(h.answer('write')?.result, {});
    assert.equal(await readFile(h.ws.file('a.txt'), 'utf8'), 'one\nTWO\nthree\n');
  });

  it('a write reviewed per hunk: only the kept hunk reaches the disk, and the agent learns which hunks and why', async () => {
    h = await start([{ call: 'fs/write_text_file', params: { path: '__CWD__/a.txt', content: 'ONE\ntwo\nTHREE\n' }, as: 'write' }]);
    const turn = h.prompt('write');
    const diff = await h.ws.host.catalog.nextDiff();
    // The user takes back the second hunk (THREE → three) and says why.
    diff.accept('ONE\ntwo\nthree\n', 'keep the last line');
    await turn;
    assert.equal(await readFile(h.ws.file('a.txt'), 'utf8'), 'ONE\ntwo\nthree\n');
    const error = h.answer('write')?.error;
    assert.equal(error?.data?.code, 'PERMISSION_DENIED');
    assert.match(error?.message ?? '', /accepted only part of the change to a\.txt: kept hunks 1; rejected hunks 2\. .*"keep the last line"/);
  });

  it('a rejected write writes nothing and the agent reads the user\'s reason', async () => {
    h = await start([{ call: 'fs/write_text_file', params: { path: '__CWD__/a.txt', content: 'gone\n' }, as: 'write' }]);
    const turn = h.prompt('write');
    (await h.ws.host.catalog.nextDiff()).reject('not this file');
    await turn;
    assert.equal(await readFile(h.ws.file('a.txt'), 'utf8'), 'one\ntwo\nthree\n');
    assert.equal(h.answer('write')?.error?.data?.code, 'PERMISSION_DENIED');
    assert.match(h.answer('write')?.error?.message ?? '', /rejected the change to a\.txt; nothing was written\. The user's reason: "not this file"/);
  });

  it('terminal/create is RunInTerminal: the exact command line asked, then output and exit status', async () => {
    h = await start([
      { call: 'terminal/create', params: { command: 'printf', args: ['%s\\n', 'two words'], cwd: '__CWD__', outputByteLimit: 5 }, as: 'create' },
    ]);
    h.ws.host.catalog.commandHandler = async () => ({ exitCode: 3, output: 'hello world\n', truncated: false, timedOut: false, via: 'process' });
    await h.prompt('run');
    const created = h.answer('create')?.result as { terminalId: string };
    assert.match(created.terminalId, /^terminal-/);
    const prompt = h.ws.host.prompts.find((p) => p.toolName === 'RunInTerminal');
    assert.equal(prompt?.message, "Run `printf '%s\\n' 'two words'` in the ws folder?");
    assert.equal(h.ws.host.catalog.commands[0]?.command, "printf '%s\\n' 'two words'");
  });

  it('terminal output, wait_for_exit, kill and release follow the RunInTerminal call', async () => {
    h = await startAcpHarness({ script: { turns: [[
      { call: 'terminal/create', params: { command: 'echo hi', outputByteLimit: 6 }, as: 'create' },
    ]] } });
    h.ws.host.catalog.commandHandler = async () => ({ exitCode: 0, output: 'hello world\n', truncated: false, timedOut: false, via: 'process' });
    await h.prompt('run');
    const id = (h.answer('create')?.result as { terminalId: string }).terminalId;
    const callbacks = callbacksOf(h);
    assert.deepEqual(await callbacks.waitForTerminalExit(id, new AbortController().signal), { exitCode: 0, signal: null });
    assert.deepEqual(await callbacks.terminalOutput(id), { output: ' world', truncated: true, exitStatus: { exitCode: 0, signal: null } });
    await callbacks.releaseTerminal(id);
    await assert.rejects(callbacks.terminalOutput(id), { code: 'NOT_FOUND' });
  });

  it('a denied command: terminal/create fails with the user\'s reason and nothing runs', async () => {
    h = await startAcpHarness({ script: { turns: [[{ call: 'terminal/create', params: { command: 'rm -rf build' }, as: 'create' }]] } });
    h.ws.host.answerPrompts({ answer: 'deny', reason: 'use the clean script' });
    await h.prompt('run');
    assert.equal(h.ws.host.catalog.commands.length, 0);
    assert.equal(h.answer('create')?.error?.data?.code, 'PERMISSION_DENIED');
    assert.match(h.answer('create')?.error?.message ?? '', /the user's reason: "use the clean script"/);
  });

  it('kill stops a running command; wait_for_exit then reports the signal', async () => {
    h = await startAcpHarness({ script: { turns: [[{ call: 'terminal/create', params: { command: 'sleep 100' }, as: 'create' }]] } });
    h.ws.host.catalog.commandHandler = (_request, signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve({ exitCode: undefined, output: 'partial', truncated: false, timedOut: false, stopped: true, via: 'process' }), { once: true }));
    await h.prompt('run');
    const id = (h.answer('create')?.result as { terminalId: string }).terminalId;
    const callbacks = callbacksOf(h);
    assert.deepEqual(await callbacks.terminalOutput(id), { output: '', truncated: false }, 'no output before the command ends');
    await callbacks.killTerminal(id);
    assert.deepEqual(await callbacks.waitForTerminalExit(id, new AbortController().signal), { exitCode: null, signal: 'SIGTERM' });
  });

  it('a permission request is the gate\'s prompt with the exact command; an allow is the agent\'s allow-once, never allow-always', async () => {
    h = await startAcpHarness({ script: { turns: [[
      { update: { sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Run the tests', kind: 'execute', status: 'pending', rawInput: { command: 'npm test', cwd: '__CWD__' } } },
      { call: 'session/request_permission', params: { toolCall: { toolCallId: 't1' }, options: PERMISSION_OPTIONS }, as: 'ask' },
    ]] } });
    await h.prompt('go');
    assert.deepEqual(h.answer('ask')?.result, { outcome: { outcome: 'selected', optionId: 'once' } });
    const prompt = h.ws.host.prompts.at(-1);
    assert.equal(prompt?.toolName, `${AGENT_NAME} Execute`);
    assert.match(prompt?.message ?? '', /^Let Test Agent run `npm test` in /);
    assert.match(prompt?.detail ?? '', /Command: npm test\n/);
    assert.equal(prompt?.offerAllowSession, false, 'a command is never remembered');
  });

  it('a denial picks the agent\'s reject-once option and passes the reason in _meta', async () => {
    h = await startAcpHarness({ script: { turns: [[
      { update: { sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Edit', kind: 'edit', status: 'pending', content: [{ type: 'diff', path: '/nowhere/x.ts', oldText: 'a', newText: 'b' }] } },
      { call: 'session/request_permission', params: { toolCall: { toolCallId: 't1' }, options: PERMISSION_OPTIONS }, as: 'ask' },
    ]] } });
    h.ws.host.answerPrompts({ answer: 'deny', reason: 'wrong file' });
    await h.prompt('go');
    assert.deepEqual(h.answer('ask')?.result, { outcome: { outcome: 'selected', optionId: 'no' }, _meta: { clientTools: { reason: 'wrong file' } } });
    const prompt = h.ws.host.prompts.at(-1);
    assert.match(prompt?.message ?? '', /^Let Test Agent change \/nowhere\/x\.ts \(outside the workspace\)\?$/);
    assert.match(prompt?.detail ?? '', /-a\n\+b/);
    assert.match(prompt?.detail ?? '', /outside the workspace: Client Tools cannot check/);
  });

  it('a remembered "allow" for an edit of one file answers the next request for it without a prompt, still as allow-once', async () => {
    const edit = (id: string): ScriptStep[] => [
      { update: { sessionUpdate: 'tool_call', toolCallId: id, title: 'Edit a.txt', kind: 'edit', status: 'pending', locations: [{ path: '__CWD__/a.txt' }] } },
      { call: 'session/request_permission', params: { toolCall: { toolCallId: id }, options: PERMISSION_OPTIONS }, as: id },
    ];
    h = await startAcpHarness({ files: { 'a.txt': 'x' }, script: { turns: [[...edit('e1'), ...edit('e2')]] } });
    h.ws.host.answerPrompts('allowSession');
    await h.prompt('go');
    assert.equal(h.ws.host.prompts.length, 1, 'asked once');
    assert.match(h.ws.host.prompts[0]?.choices[0]?.label ?? '', /^Allow Test Agent Edit of ws\/a\.txt|^Allow Test Agent Edit of a\.txt/);
    assert.deepEqual(h.answer('e1')?.result, { outcome: { outcome: 'selected', optionId: 'once' } });
    assert.deepEqual(h.answer('e2')?.result, { outcome: { outcome: 'selected', optionId: 'once' } });
  });

  it('a permission request the agent described only in the request (Gemini CLI does so) gets its card and the prompt', async () => {
    h = await startAcpHarness({ script: { turns: [[
      { call: 'session/request_permission', params: { toolCall: { toolCallId: 'g1', title: 'Echo (clienttools MCP Server)', kind: 'other', status: 'pending', content: [{ type: 'content', content: { type: 'text', text: '{"text":"hi"}' } }] }, options: PERMISSION_OPTIONS }, as: 'ask' },
    ]] } });
    await h.prompt('go');
    assert.deepEqual(h.answer('ask')?.result, { outcome: { outcome: 'selected', optionId: 'once' } });
    assert.equal(h.events.find((e) => e.type === 'toolCallStarted')?.type, 'toolCallStarted');
    assert.match(h.ws.host.prompts.at(-1)?.message ?? '', /^Let Test Agent use Echo \(clienttools MCP Server\)\?$/);
  });
});

describe('agent callbacks: one prompt per action for the editor\'s own MCP tools', () => {
  let h: AcpHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('a request for a tool of the session\'s editor MCP server is answered allow-once without a prompt, and the card says the gate decides the call', async () => {
    h = await startAcpHarness({ script: { turns: [[
      { update: { sessionUpdate: 'tool_call', toolCallId: 'm1', title: 'mcp____MCP____Guarded', kind: 'other', status: 'pending', rawInput: {} } },
      { call: 'session/request_permission', params: { toolCall: { toolCallId: 'm1', title: 'mcp____MCP____Guarded', rawInput: {} }, options: PERMISSION_OPTIONS }, as: 'ask' },
    ]] } });
    await h.prompt('go');
    assert.deepEqual(h.answer('ask')?.result, { outcome: { outcome: 'selected', optionId: 'once' } });
    assert.equal(h.ws.host.prompts.length, 0);
    const noted = h.events.find((e) => e.type === 'toolCallUpdated' && e.status === 'running');
    assert.equal((noted as { details?: string } | undefined)?.details, EDITOR_DECIDES);
  });
});

describe('agent callbacks: prompts name the agent', () => {
  let h: AcpHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('a call the agent makes in its turn (a protected file read) says the conversation\'s agent asked for it', async () => {
    h = await startAcpHarness({ files: { '.env': 'KEY=1\n' }, script: { turns: [[{ call: 'fs/read_text_file', params: { path: '__CWD__/.env' }, as: 'read' }]] } });
    h.ws.host.answerPrompts('allow');
    await h.prompt('go');
    assert.deepEqual(h.answer('read')?.result, { content: 'KEY=1\n' });
    const prompt = h.ws.host.prompts.at(-1);
    assert.match(String(prompt?.detail), /^Asked for by Test Agent, the agent of this conversation\.$/m);
    assert.doesNotMatch(String(prompt?.detail), /backend|MCP server/);
  });

  it('a call of the agent over MCP outside its turn is a background call named after the agent, not "the backend" or "an agent outside this chat"', async () => {
    h = await startAcpHarness({ script: { turns: [] } });
    h.ws.host.answerPrompts('deny');
    const client = new Client({ name: 'whatever-the-agent-says', version: '1' });
    const auth = (h.mcp.server as { headers: { value: string }[] }).headers[0]?.value ?? '';
    await client.connect(new StreamableHTTPClientTransport(new URL(h.mcp.url), { requestInit: { headers: { Authorization: auth } } }));
    try {
      const result = (await client.callTool({ name: 'Guarded', arguments: {} })) as CallToolResult;
      assert.equal(result.isError, true);
    } finally {
      await client.close();
    }
    const prompt = h.ws.host.prompts.at(-1);
    assert.equal(String(prompt?.message), 'Test Agent request: Allow Guarded?');
    assert.match(String(prompt?.detail), /^Test Agent, the agent of a conversation in this chat, asked for this while no turn you started is running \(a background call\)\.$/m);
    assert.equal(h.records.find((r) => r.toolName === 'Guarded')?.caller, 'Test Agent');
  });
});

describe('agent callbacks: helpers', () => {
  it('quotes arguments for the shell only when they need it', () => {
    assert.equal(shellQuote('-la'), '-la');
    assert.equal(shellQuote('two words'), "'two words'");
    assert.equal(shellQuote("it's"), "'it'\\''s'");
    assert.equal(shellQuote('$(rm -rf /)'), "'$(rm -rf /)'");
  });

  it('keeps the end of the output within the byte limit, never half a character', () => {
    assert.deepEqual(keepTail('hello', undefined), { text: 'hello', cut: false });
    assert.deepEqual(keepTail('hello world', 5), { text: 'world', cut: true });
    assert.deepEqual(keepTail('aé', 1), { text: '', cut: true });
  });
});
