/**
 * Work the extension does on what a backend, an MCP server or a file sends is bounded by
 * construction, not by the hope that nobody sends the worst (issue 25; the freeze-and-bloat fuzzer
 * in test/fuzz/ found each of these): a message is measured before it is parsed, the chat keeps its
 * own copy of the part of a huge answer it shows, the door for UI text reads only what can show and
 * runs no backtracking pattern, an MCP server's stdio lines are read in linear time, measured
 * before they are parsed and skipped unjoined past the longest a message may be, a .gitignore line's trailing spaces are trimmed in linear time.
 */
import * as assert from 'node:assert/strict';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import * as path from 'node:path';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import type { Logger } from '../../src/base/logger';
import { textHash } from '../../src/core/fileIdentity';
import { cardHunks, hunkReview, readReviewedText } from '../../src/core/hunkReview';
import { toLf } from '../../src/core/lineDiff';
import { sanitizeForNotification, uiText } from '../../src/core/uiText';
import { ErrorCode } from '../../src/protocol';
import type { McpServerConfig } from '../../src/tools/mcpClient/config';
import { McpServerSupervisor, type McpServerState } from '../../src/tools/mcpClient/supervisor';
import { sameText } from '../../src/tools/support/format';
import { GitIgnore } from '../../src/tools/support/gitignore';
import { toChatRunEvent } from '../../src/vscode/chat/chatBridge';
import { initialState, reduce, MAX_ANSWER_CHARS, type ChatState } from '../../src/webview/state';
import { startMcpHarness } from '../support/mcp-harness';
import { CoreRig, until } from './support/core-rig';

/** CPU time `f` took, in ms: a bound on the work itself, whatever else the machine runs. */
function cpuMs(f: () => unknown): number {
  const start = process.cpuUsage();
  f();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

function members(n: number): string {
  return `{${Array.from({ length: n }, (_, i) => `"k${i}":0`).join(',')}}`;
}

describe('untrusted data: the work the extension does on it is bounded by construction', () => {
  describe('messages from a backend', () => {
    let rig: CoreRig;
    beforeEach(async () => {
      rig = await CoreRig.start();
      await rig.connect();
    });
    afterEach(() => rig.dispose());

    it('T-WORK-01 a 1.2 MB message whose arguments have 100,000 members is refused before it is parsed (MESSAGE_TOO_LARGE, the limit named); the connection and its calls go on', async () => {
      const sockets = rig.backend.sockets.length;
      const refusals: string[] = [];
      rig.core.onProtocolError((e) => refusals.push(`${e.code}: ${e.message}`));
      rig.backend.sendRaw(`{"type":"toolCallStarted","threadId":"t","runId":"r","callId":"c","toolName":"Echo","executor":"client","arguments":${members(100_000)}}`);
      await until(() => refusals.length > 0, 'the refusal');
      assert.deepEqual(refusals, ['MESSAGE_TOO_LARGE: an object in the message has more than 10,000 members']);
      await rig.assertHealthy(sockets);
    });

    it('T-WORK-11 a message whose JSON passes the 4 MiB the extension announces (hello.limits.maxJsonBytes) is refused before it is decoded (MESSAGE_TOO_LARGE), as a text frame or a binary frame\'s JSON; a 6 MiB attachment is not JSON and is taken; the connection and its calls go on', async () => {
      const sockets = rig.backend.sockets.length;
      assert.equal(rig.backend.hellos.at(-1)?.limits?.maxJsonBytes, 4 * 1024 * 1024);
      const refusals: string[] = [];
      const ended: string[] = [];
      rig.core.onProtocolError((e) => refusals.push(`${e.code}: ${e.message}`));
      rig.core.onRunEvent((e) => void (e.type === 'toolCallEnded' && ended.push(e.callId)));
      const text = 'a'.repeat(5 * 1024 * 1024);
      const delta = JSON.stringify({ type: 'textDelta', threadId: 't', runId: 'r', text });
      rig.backend.sendRaw(delta);
      const png = new Uint8Array(6 * 1024 * 1024);
      const ref = { threadId: 't', runId: 'r', outcome: 'succeeded', durationMs: 1 } as const;
      rig.backend.send({ type: 'toolCallEnded', ...ref, callId: 'long-json', content: [{ type: 'text', text }, { type: 'binary', mimeType: 'image/png', bytes: png }] });
      rig.backend.send({ type: 'toolCallEnded', ...ref, callId: 'long-attachment', content: [{ type: 'binary', mimeType: 'image/png', bytes: png }] });
      await until(() => refusals.length === 2 && ended.length === 1, 'two refusals and one call ended');
      assert.equal(refusals[0], `MESSAGE_TOO_LARGE: the JSON of the message is ${Buffer.byteLength(delta)} bytes, more than the limit of 4194304 bytes`);
      const json = Number(/^MESSAGE_TOO_LARGE: the JSON of the message is (\d+) bytes, more than the limit of 4194304 bytes$/.exec(refusals[1])?.[1]);
      assert.ok(json > text.length && json < text.length + 1000, refusals[1]);
      assert.deepEqual(ended, ['long-attachment']);
      await rig.assertHealthy(sockets);
    });

    it('T-WORK-02 tool group state of 257 groups, or an expansion of 513 tools, is refused (INVALID_MESSAGE): the schema bounds every array a backend sends', async () => {
      const sockets = rig.backend.sockets.length;
      const group = { name: 'g', description: 'd', expanded: false, containerName: 'g', tools: [], skills: [] };
      rig.backend.sendRaw(JSON.stringify({ type: 'toolGroupState', collapsing: true, groups: Array(257).fill(group) }));
      rig.backend.sendRaw(JSON.stringify({ type: 'groupExpanded', threadId: 't', runId: 'r', group: 'g', tools: Array(513).fill('T') }));
      await until(() => rig.protocolErrors.filter((c) => c === ErrorCode.InvalidMessage).length === 2, 'both refusals');
      await rig.assertHealthy(sockets);
    });
  });

  it('T-WORK-03 the chat keeps a copy of its own of the 100,000 characters it shows of a 32 MiB answer: the heap after GC comes back once the event is gone', () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const heap = () => {
      gc();
      gc();
      return process.memoryUsage().heapUsed;
    };
    // The 32 MiB texts live only inside `answer`, as an event the view received and reduced.
    const answer = (state: ChatState, i: number): ChatState => {
      const started = reduce(state, { type: 'runEvent', event: { type: 'runStarted', threadId: 't', runId: `r${i}`, model: 'm' } });
      return reduce(started, { type: 'runEvent', event: { type: 'textDelta', threadId: 't', runId: `r${i}`, text: `${'a'.repeat(32 * 1024 * 1024 - 1)}${i}` } });
    };
    let state: ChatState = initialState();
    const before = heap();
    for (let i = 0; i < 4; i++) state = answer(state, i);
    const grown = heap() - before;
    const answers = state.items.filter((x) => x.kind === 'answer');
    assert.equal(answers.length, 4);
    assert.ok(answers.every((a) => a.kind === 'answer' && a.text.length === MAX_ANSWER_CHARS));
    assert.ok(grown < 16 * 1024 * 1024, `four answers kept ${(grown / 1024 / 1024).toFixed(0)} MiB of heap (each held its 32 MiB message)`);
  });

  it('T-WORK-04 UI text and notification text take linear time: 100,000 spaces and an "x", and a link target of 100,000 spaces, each in well under a second of CPU; the results as before', () => {
    const spaces = `${' '.repeat(100_000)}x`;
    assert.ok(cpuMs(() => uiText(spaces)) < 1000);
    assert.ok(cpuMs(() => uiText(spaces, { verbatim: true, maxLength: 200_000 })) < 1000);
    assert.ok(cpuMs(() => sanitizeForNotification(`[x](${' '.repeat(100_000)}`)) < 1000);
    // Only what can show was read, and the result says it was cut.
    assert.equal(uiText(spaces), `${' '.repeat(1999)}…`);
    assert.equal(uiText('a  \n  '), 'a  ⏎');
    assert.equal(uiText(`${'b'.repeat(3000)}   `), `${'b'.repeat(1999)}…`);
    assert.equal(sanitizeForNotification('[site]( http://a.example "t" ) and [x](command:run)'), 'site (http://a.example) and x');
  });

  it('T-WORK-05 an MCP server\'s 24 MiB line is skipped as it comes, never joined; a message of 100,000 members is dropped unparsed with the reason logged; the call is answered', async () => {
    const warnings: string[] = [];
    const logger: Logger = { info: () => {}, warn: () => {}, error: () => {}, debug: (m, f) => warnings.push(`${m} ${JSON.stringify(f ?? {})}`) };
    const config: McpServerConfig = { name: 'flooding', source: { kind: 'user' }, launch: { type: 'stdio', command: process.execPath, args: [path.join(__dirname, 'support', 'flooding-mcp-server.mjs')], env: {} } };
    const supervisor = new McpServerSupervisor(config, logger, { initialDelayMs: 20, maxDelayMs: 50 });
    const original = Buffer.concat;
    let bigJoins = 0;
    try {
      supervisor.start();
      await new Promise<McpServerState>((resolve) => supervisor.onDidChangeState((s) => s.kind === 'running' && resolve(s)));
      Buffer.concat = ((list: readonly Uint8Array[], length?: number) => {
        const joined = original(list, length);
        if (joined.length > 8 * 1024 * 1024) bigJoins++;
        return joined;
      }) as typeof Buffer.concat;
      const content = await supervisor.callTool('echo', {}, new AbortController().signal);
      assert.deepEqual(content, [{ type: 'text', text: 'after the flood' }]);
    } finally {
      Buffer.concat = original;
      await supervisor.stop();
    }
    assert.equal(bigJoins, 0, `the 24 MiB line was joined ${bigJoins} times`);
    assert.ok(warnings.some((w) => /dropped unread: it is 2516\d{4} bytes, more than the 4194304 bytes a message may have/.test(w)), warnings.join('\n').slice(0, 500));
    assert.ok(warnings.some((w) => /dropped unread: an object in the message has more than 10,000 members/.test(w)), warnings.join('\n').slice(0, 500));
  });

  it('T-WORK-10 an MCP server\'s answer longer than a message may be (6 MiB, an image) fails its call at once with RESULT_TOO_LARGE, its id read from either end; never joined; the next call is answered', async () => {
    const config: McpServerConfig = { name: 'flooding', source: { kind: 'user' }, launch: { type: 'stdio', command: process.execPath, args: [path.join(__dirname, 'support', 'flooding-mcp-server.mjs')], env: {} } };
    // A call's own time limit far beyond the test's: a failure by timeout would not be this one.
    const supervisor = new McpServerSupervisor(config, { info: () => {}, warn: () => {}, error: () => {} }, { initialDelayMs: 20, maxDelayMs: 50, callTimeoutMs: 600_000 });
    const original = Buffer.concat;
    let bigJoins = 0;
    try {
      supervisor.start();
      await new Promise<McpServerState>((resolve) => supervisor.onDidChangeState((s) => s.kind === 'running' && resolve(s)));
      Buffer.concat = ((list: readonly Uint8Array[], length?: number) => {
        const joined = original(list, length);
        if (joined.length > 4 * 1024 * 1024) bigJoins++;
        return joined;
      }) as typeof Buffer.concat;
      for (const tool of ['picture', 'picture-id-first']) {
        await assert.rejects(supervisor.callTool(tool, {}, new AbortController().signal), (e: Error & { code?: string }) => {
          assert.equal(e.code, ErrorCode.ResultTooLarge);
          assert.match(e.message, /^MCP server flooding: a message from the MCP server was dropped unread: it is 6\d{6} bytes, more than the 4194304 bytes a message may have$/);
          return true;
        });
      }
      assert.equal(supervisor.state.kind, 'running');
      assert.deepEqual(await supervisor.callTool('echo', {}, new AbortController().signal), [{ type: 'text', text: 'after the flood' }]);
    } finally {
      Buffer.concat = original;
      await supervisor.stop();
    }
    assert.equal(bigJoins, 0, `a line over 4 MiB was joined ${bigJoins} times`);
  });

  it('T-WORK-07 a diff review of 2,000 lines of 12 KB that share all but their last character compares each line once, not once per table cell: well under a second of CPU', () => {
    const prefix = 'x'.repeat(12 * 1024);
    const file = Array.from({ length: 1999 }, (_, i) => `${prefix}${i % 2}\n`).join('');
    const proposal = Array.from({ length: 1999 }, (_, i) => `${prefix}${(i + 1) % 3}\n`).join('');
    let hunks = 0;
    assert.ok(cpuMs(() => (hunks = hunkReview(file, proposal).hunks.length)) < 1000);
    assert.ok(hunks > 100, `${hunks} hunks`);
  });

  it('T-WORK-31 a diff review of 2,000 lines of 8 KB made alike where line numbering looks first (length, ends, middle) and different just before their end compares each line whole a few times at most: well under a second of CPU', () => {
    const line = (k: number) => `${'a'.repeat(4000)}m${'b'.repeat(4000)}${String(k).padStart(6, '0')}${'z'.repeat(30)}\n`;
    const file = Array.from({ length: 2000 }, (_, i) => line(2 * i)).join('');
    const proposal = Array.from({ length: 2000 }, (_, i) => line(i % 2 ? 2 * i : 2 * i + 1)).join('');
    let hunks = 0;
    assert.ok(cpuMs(() => (hunks = hunkReview(file, proposal).hunks.length)) < 1000);
    assert.equal(hunks, 1000);
  });

  it('T-WORK-32 an agent\'s 8 MiB write of CR line endings (4 million CRs, the fuzzer\'s ACP sequence) is read as LF, compared with the file and hashed, as OpenDiff does, in one pass each, not a replace per CR: well under a second of CPU', () => {
    const proposal = 'z\r'.repeat(4 * 1024 * 1024);
    const file = 'line one\nline two\n';
    let normalised = '';
    let same = true;
    let hash = '';
    assert.ok(cpuMs(() => {
      normalised = toLf(proposal);
      same = sameText(file, proposal);
      hash = textHash(proposal);
    }) < 1000);
    assert.equal(normalised, 'z\n'.repeat(4 * 1024 * 1024));
    assert.equal(same, false);
    assert.equal(hash, textHash(normalised));
  });

  it('T-WORK-33 the review of an 8 MiB proposal of 4 million lines as it stands (the card drawn before any choice, an Accept without changes) compares it with the proposal\'s lines in one pass, not split into 4 million strings and aligned again: well under half a second of CPU', () => {
    const proposal = 'z\n'.repeat(4 * 1024 * 1024);
    const review = hunkReview('line one\nline two\n', proposal);
    let states: string[] = [];
    let card: ReturnType<typeof cardHunks> = [];
    let edited = true;
    assert.ok(cpuMs(() => {
      ({ states, editedByUser: edited } = readReviewedText(review, proposal));
      card = cardHunks(review, proposal, (i) => `Hunk ${i + 1}`, 200);
    }) < 500);
    assert.deepEqual(states, ['kept']);
    assert.equal(edited, false);
    assert.deepEqual(card.map((h) => h.state), ['kept']);
  });

  it('T-WORK-08 the editor\'s MCP server refuses a 1 MiB tools/call whose arguments have 80,000 members before the SDK parses it (413, the limit named); the session still answers', async () => {
    const h = await startMcpHarness({ backgroundCalls: 'allow' });
    try {
      const post = async (body: string, session?: string) => {
        const res = await fetch(h.server.url, {
          method: 'POST',
          headers: { authorization: `Bearer ${h.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': LATEST_PROTOCOL_VERSION, ...(session ? { 'mcp-session-id': session } : {}) },
          body,
        });
        return { status: res.status, text: await res.text(), session: res.headers.get('mcp-session-id') ?? undefined };
      };
      const init = await post(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'rogue', version: '1' } } }));
      await post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), init.session);
      const attack = await post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"Echo","arguments":${members(80_000)}}}`, init.session);
      assert.equal(attack.status, 413);
      assert.match(attack.text, /refused unread: an object in the message has more than 10,000 members/);
      const ping = await post(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }), init.session);
      assert.equal(ping.status, 200);
      assert.equal(h.records.length, 0, 'nothing ran');
    } finally {
      await h.close();
    }
  });

  it('T-WORK-09 the chat is posted at most what an answer can show of a 32 MiB text delta (one character more, so it shows as cut)', () => {
    const posted = toChatRunEvent({ type: 'textDelta', threadId: 't', runId: 'r', text: 'a'.repeat(32 * 1024 * 1024) }, () => '');
    assert.equal(posted.type === 'textDelta' && posted.text.length, MAX_ANSWER_CHARS + 1);
    const started = reduce(initialState(), { type: 'runEvent', event: { type: 'runStarted', threadId: 't', runId: 'r', model: 'm' } });
    const shown = reduce(started, { type: 'runEvent', event: posted }).items.find((i) => i.kind === 'answer');
    assert.ok(shown?.kind === 'answer' && shown.truncated && shown.text.length === MAX_ANSWER_CHARS);
  });

  it('T-WORK-06 a .gitignore line of 100,000 spaces and an "x" is read in linear time; trailing spaces go unless a backslash quotes the first', () => {
    assert.ok(cpuMs(() => new GitIgnore(`${' '.repeat(100_000)}x\n`)) < 1000);
    const rules = new GitIgnore('build   \nkeep\\ \n');
    assert.equal(rules.ignores('build'), true);
    assert.equal(rules.ignores('keep '), true);
    assert.equal(rules.ignores('keep'), false);
  });
});
