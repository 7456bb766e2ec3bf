import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type ts from 'typescript';
import { HOST_MESSAGE_REPLAY, HostToWebview, LATEST_HOST_MESSAGES, receiveFromHost, receiveFromWebview, WebviewToHost } from '../../../src/protocol/webview';
import { ErrorCode } from '../../../src/protocol/errors';
import { describeAll, lineOf, lines, ROOT, typecheck } from '../../support/typecheck';

const WEBVIEW = path.join(ROOT, 'src/protocol/webview.ts');
const FIXTURE = 'test/fixtures/compile-fail/chatMessages.ts';
const HOST_RECORD = 'const hostToWebview = hostMessages({';
const VIEW_RECORD = 'const webviewToHost = webviewMessages({';

/** webview.ts with `entry` added first to the record that opens with `record`. */
function withEntry(record: string, entry: string): string {
  const text = readFileSync(WEBVIEW, 'utf8');
  assert.ok(text.includes(record), `webview.ts keeps one record per direction (${record})`);
  return text.replace(record, `${record}\n  ${entry},`);
}

describe('chat messages: one definition both sides are held to by the compiler', function () {
  // Type-checked programs take seconds on a busy machine; nothing here waits on timers.
  this.timeout(180_000);

  it('the compile-fail fixture fails exactly on its MUST FAIL lines, each with its error', () => {
    const result = typecheck([path.join(ROOT, FIXTURE)], new Map());
    const failures = result.get(FIXTURE);
    assert.deepEqual([...result.keys()], [FIXTURE], describeAll([...result.values()].flat()));
    const expected = readFileSync(path.join(ROOT, FIXTURE), 'utf8').split('\n').flatMap((l, i) => (l.includes('// MUST FAIL') ? [i + 1] : []));
    assert.equal(expected.length, 4);
    assert.deepEqual(lines(failures), expected, describeAll(failures));
    const [notAMessage, missingField, wrongType, extraField] = failures!;
    assert.equal(notAMessage.code, 2322);
    assert.match(describeAll([notAMessage]), /Type '"executeCommand"' is not assignable to type '"\w+" \| /);
    assert.equal(missingField.code, 2345);
    assert.match(describeAll([missingField]), /Property 'text' is missing in type '\{ type: "send"; \}'/);
    assert.equal(wrongType.code, 2322);
    assert.match(describeAll([wrongType]), /Type 'string' is not assignable to type 'boolean'/);
    assert.equal(extraField.code, 2353);
    assert.match(describeAll([extraField]), /'extra' does not exist in type '\{ type: "ready"/);
  });

  describe('adding a message is one entry in its direction\'s record, and the compiler names what must handle it', () => {
    const state = 'src/webview/state.ts';
    const chatView = 'src/vscode/chat/chatView.ts';
    let toView: Map<string, ts.Diagnostic[]>;
    let toHost: Map<string, ts.Diagnostic[]>;

    before(() => {
      // The view's reducer is type-checked with the view's own settings (DOM types), the host's receiver with the project's.
      toView = typecheck([path.join(ROOT, state)], new Map([[WEBVIEW, withEntry(HOST_RECORD, "ping: { schema: z.object({ type: z.literal('ping'), nonce: z.string() }), replay: 'queued' }")]]), 'src/webview/tsconfig.json');
      toHost = typecheck([path.join(ROOT, chatView)], new Map([[WEBVIEW, withEntry(VIEW_RECORD, "pong: z.object({ type: z.literal('pong') })")]]));
    });

    it('a new host → webview message fails the view\'s reducer at its assertNeverOr, and nothing else', () => {
      assert.deepEqual([...toView.keys()], [state], describeAll([...toView.values()].flat()));
      assert.deepEqual(lines(toView.get(state)), [lineOf(state, 'return assertNeverOr(action, state);')]);
      assert.match(describeAll(toView.get(state)), /TS2345 Argument of type '\{ type: "ping"; nonce: string; \}' is not assignable to parameter of type 'never'/);
    });

    it('a new webview → host message fails the host\'s receiver at its assertNever, and nothing else', () => {
      assert.deepEqual([...toHost.keys()], [chatView], describeAll([...toHost.values()].flat()));
      assert.deepEqual(lines(toHost.get(chatView)), [lineOf(chatView, "assertNever(message, 'message from the chat view')")]);
      assert.match(describeAll(toHost.get(chatView)), /TS2345 Argument of type '\{ type: "pong"; \}' is not assignable to parameter of type 'never'/);
    });

    it('a host message must declare its replay, and a record key must be its message\'s type', () => {
      for (const entry of [
        "ping: { schema: z.object({ type: z.literal('ping') }) }",
        "ping: { schema: z.object({ type: z.literal('ping') }), replay: 'sometimes' }",
        "pong: { schema: z.object({ type: z.literal('ping') }), replay: 'queued' }",
      ]) {
        const result = typecheck([WEBVIEW], new Map([[WEBVIEW, withEntry(HOST_RECORD, entry)]]));
        const failures = result.get('src/protocol/webview.ts');
        assert.equal(failures?.length, 1, `${entry}: ${describeAll([...result.values()].flat())}`);
        assert.deepEqual(lines(failures), [lineOf('src/protocol/webview.ts', HOST_RECORD) + 1], entry);
      }
      const wrongKey = typecheck([WEBVIEW], new Map([[WEBVIEW, withEntry(VIEW_RECORD, "pong: z.object({ type: z.literal('ping') })")]]));
      assert.equal(wrongKey.get('src/protocol/webview.ts')?.length, 1, describeAll([...wrongKey.values()].flat()));
    });
  });
});

describe('chat messages: each side parses what it receives, and refuses the rest whole with INVALID_MESSAGE', () => {
  it('a valid message comes through as parsed', () => {
    assert.deepEqual(receiveFromHost({ type: 'awaitingInput', open: true }), { ok: true, message: { type: 'awaitingInput', open: true } });
    assert.deepEqual(receiveFromWebview({ type: 'send', text: 'hi' }), { ok: true, message: { type: 'send', text: 'hi' } });
  });

  it('an unknown type, a missing field, a wrong type and a non-object are refused with the code and the field at fault', () => {
    const cases: [unknown, RegExp][] = [
      [{ type: 'executeCommand', command: 'x' }, /^type: /],
      [{ type: 'callRecord' }, /^record: /],
      [{ type: 'awaitingInput', open: 'yes' }, /^open: /],
      ['ready', /^\(root\): /],
    ];
    for (const [raw, where] of cases) {
      const received = receiveFromHost(raw);
      assert.equal(received.ok, false, JSON.stringify(raw));
      if (received.ok) continue;
      assert.equal(received.error.code, ErrorCode.InvalidMessage);
      assert.match(received.error.message, where);
    }
    const fromView = receiveFromWebview({ type: 'send', text: '   ' });
    assert.deepEqual(fromView.ok ? undefined : fromView.error.code, 'INVALID_MESSAGE');
  });

  it('a refusal names the field, never the value (it may be long or hostile), and stays short', () => {
    const received = receiveFromHost({ type: 'status', status: { connection: 'x'.repeat(1_000_000) } });
    assert.equal(received.ok, false);
    if (received.ok) return;
    assert.ok(!received.error.message.includes('xxxx'), received.error.message.slice(0, 200));
    assert.ok(received.error.message.length < 2000);
    assert.equal(WebviewToHost.safeParse({ type: 'refusedMessage', ...received.error }).success, true, 'the view can report it to the host');
  });
});

describe('chat messages: what a view that says ready gets again', () => {
  it('every host → webview message declares its replay; the window\'s state is `latest`, the transcript\'s `queued`', () => {
    const types = HostToWebview.options.map((o) => o.shape.type.value).sort();
    assert.deepEqual(Object.keys(HOST_MESSAGE_REPLAY).sort(), types);
    assert.deepEqual(LATEST_HOST_MESSAGES, ['status', 'awaitingInput', 'approval', 'displaySettings', 'agents', 'runChanges', 'threads']);
    assert.equal(HOST_MESSAGE_REPLAY.sync, 'atReady');
    for (const t of ['runEvent', 'callRecord', 'userMessage', 'error', 'notice', 'reset', 'showThread', 'diffReview'] as const) assert.equal(HOST_MESSAGE_REPLAY[t], 'queued', t);
  });
});
