import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { MAX_TRANSCRIPT_CHARS, MAX_TRANSCRIPT_ITEMS, receiveFromWebview, type TranscriptPatch } from '../../../../src/protocol/webview';
import type { ChatViewProvider, ThreadRequest } from '../../../../src/vscode/chat/chatView';
import { HostOutbox } from '../../../../src/vscode/chat/pendingHostMessages';
import { ChatThreads } from '../../../../src/vscode/chat/threads';
import { TranscriptCopy } from '../../../../src/vscode/chat/transcriptCopy';
import { initialState, MAX_ITEMS, reduce, transcriptOf, type ChatAction, type ChatState } from '../../../../src/webview/state';
import { TranscriptSync } from '../../../../src/webview/transcriptSync';
import { ev, PNG_1X1 } from '../../webview/fixtures';

const THREAD_ID = '6f1c2a4e-0b7d-4c55-9a31-5e8d2f40b7c1';
const OTHER_ID = '3b241101-e2bb-4255-8caf-4136c566a962';

/** The view's side and the host's side of one transcript, every message through the host's parser. */
function pair(maxChars = MAX_TRANSCRIPT_CHARS) {
  const posted: TranscriptPatch[] = [];
  const sync = new TranscriptSync((p) => posted.push(p), maxChars);
  const copy = new TranscriptCopy();
  /** Saves `state` as the view does and applies what was posted as the host does: the host's JSON text. */
  const save = (state: ChatState): string | undefined => {
    const before = posted.length;
    sync.save(state, 1);
    assert.ok(posted.length <= before + 1);
    if (posted.length === before) return undefined;
    const received = receiveFromWebview(posted[before]);
    assert.ok(received.ok, received.ok ? '' : received.error.message);
    assert.equal(received.message.type, 'transcriptPatch');
    const applied = copy.apply(received.message as TranscriptPatch);
    assert.ok(applied.ok, applied.ok ? '' : applied.message);
    return applied.json;
  };
  return { posted, sync, copy, save };
}

const withThread = (s: ChatState, threadId = THREAD_ID): ChatState => ({ ...s, threadId });

function turns(n: number, from = 0): ChatAction[] {
  const out: ChatAction[] = [];
  for (let i = from; i < from + n; i++) {
    const runId = `run-${i}`;
    out.push({ type: 'userMessage', text: `question ${i}` }, ev.started(runId), ev.text(`answer ${i} `, runId), ev.text('more', runId));
    if (i % 3 === 0) {
      out.push(ev.toolStarted(`c${i}`, 'readFile', { path: `src/f${i}.ts` }, { runId }));
      out.push(ev.toolEnded(`c${i}`, 'succeeded', 5, [{ type: 'text', text: `line\n`.repeat(50) }], undefined, runId));
    }
    out.push(ev.finished('completed', runId));
  }
  return out;
}

describe('the chat transcript sent to the host as item-level changes (webview/transcriptSync, vscode/chat/transcriptCopy)', () => {
  it('the host\'s patched copy is, save after save, the JSON text a whole save gives; after the first save only changes travel', () => {
    const { posted, save } = pair();
    let s = withThread(initialState());
    s = turns(4).reduce(reduce, s);
    assert.equal(save(s), transcriptOf(s));
    assert.equal(posted[0].base, null, 'the first save is the whole transcript');
    const steps: ChatAction[] = [
      ...turns(3, 4),
      { type: 'userMessage', text: 'stream now' }, ev.started('run-live'),
      ...Array.from({ length: 20 }, (_, i) => ev.text(` word${i}`, 'run-live')),
      ev.toolStarted('img', 'screenshot', {}, { runId: 'run-live' }),
      ev.toolEnded('img', 'succeeded', 3, [{ type: 'binary', mimeType: 'image/png', bytes: PNG_1X1 }], undefined, 'run-live'),
      ev.text('after the card', 'run-live'),
      ev.finished('completed', 'run-live'),
      { type: 'notice', text: 'a notice' },
      { type: 'error', message: 'rate limited', code: 'MODEL_RATE_LIMITED', retryable: true },
    ];
    for (const action of steps) {
      s = reduce(s, action);
      const json = save(s);
      if (json !== undefined) assert.equal(json, transcriptOf(s));
    }
    // A card far up the thread opened (replaced in its place), then Rewind to here (the end cut, more added).
    const card = s.items.find((it) => it.kind === 'tool')!;
    s = reduce(s, { type: 'toggleCard', id: card.id, open: true });
    const opened = posted.length;
    assert.equal(save(s), transcriptOf(s));
    assert.equal(posted[opened].set.length, 1, 'one item replaced');
    assert.equal(posted[opened].append.length, 0);
    s = reduce(s, { type: 'rewound', threadId: THREAD_ID, runId: 'run-5' });
    assert.equal(save(s), transcriptOf(s));
    s = turns(2, 50).reduce(reduce, s);
    assert.equal(save(s), transcriptOf(s));
    assert.equal(save(s), undefined, 'an unchanged transcript sends nothing');
    assert.ok(posted.slice(1).every((p) => p.base !== null), 'no whole transcript after the first');
    // A delta of streamed text costs the item it changed, not the thread.
    s = reduce(reduce(s, ev.started('run-tail')), ev.text('tail', 'run-tail'));
    save(s);
    s = reduce(s, ev.text(' more tail', 'run-tail'));
    const delta = posted.length;
    assert.equal(save(s), transcriptOf(s));
    const p = posted[delta];
    assert.deepEqual([p.set.length, p.append.length, p.drop], [1, 0, 0]);
    assert.ok(JSON.stringify(p).length < 1_000, `${JSON.stringify(p).length} characters for one delta`);
  });

  it('follows the transcript\'s bounds: the oldest items dropped (MAX_ITEMS, the size cap) travel as changes', () => {
    const small = pair(8_000);
    let s = withThread(initialState());
    for (const action of turns(40)) {
      s = reduce(s, action);
      const json = small.save(s);
      if (json !== undefined) assert.equal(json, transcriptOf(s, 8_000));
    }
    assert.ok(small.posted.some((p) => p.drop > 0), 'items left the start of the capped transcript');
    assert.ok(small.posted.slice(1).every((p) => p.base !== null));

    const many = pair();
    let m = withThread(initialState());
    for (let i = 0; i < MAX_ITEMS + 50; i++) {
      m = reduce(m, { type: 'notice', text: `n${i}` });
      if (i % 97 === 0 || i >= MAX_ITEMS) assert.equal(many.save(m) ?? transcriptOf(m), transcriptOf(m));
    }
    assert.equal(m.items.length, MAX_ITEMS);
    assert.ok(MAX_ITEMS <= MAX_TRANSCRIPT_ITEMS, 'the host takes every item the view keeps');
  });

  it('another thread shown, or the host\'s resync, sends the whole transcript again', () => {
    const { posted, sync, save } = pair();
    let s = withThread(turns(2).reduce(reduce, initialState()));
    save(s);
    s = reduce(s, { type: 'showThread', threadId: OTHER_ID, transcript: JSON.parse(transcriptOf(s)) });
    assert.equal(save(s), transcriptOf(s));
    assert.equal(posted.at(-1)!.base, null);
    assert.equal(posted.at(-1)!.threadId, OTHER_ID);
    s = reduce(s, { type: 'notice', text: 'changed' });
    sync.resync(THREAD_ID);
    save(s);
    assert.notEqual(posted.at(-1)!.base, null, 'a resync for a thread not shown changes nothing');
    s = reduce(s, { type: 'notice', text: 'changed again' });
    sync.resync(OTHER_ID);
    assert.equal(save(s), transcriptOf(s));
    assert.equal(posted.at(-1)!.base, null);
  });

  it('refuses a patch that does not fit its copy with INVALID_MESSAGE, leaves the copy as it was, and a whole transcript puts it right', () => {
    const { posted, sync, copy, save } = pair();
    let s = withThread(turns(3).reduce(reduce, initialState()));
    save(s);
    s = reduce(s, { type: 'notice', text: 'one more' });
    const good = save(s)!;
    const last = posted.at(-1)!;
    const next = { ...last, base: last.revision, revision: last.revision + 1, drop: 0, keep: 0, set: [], append: [] };
    const count = JSON.parse(good).items.length as number;
    const bad: [string, TranscriptPatch][] = [
      ['another revision', { ...next, base: last.revision - 1 }],
      ['a revision that does not follow', { ...next, revision: last.revision }],
      ['another thread', { ...next, threadId: OTHER_ID }],
      ['more items than the copy has', { ...next, drop: 1, keep: count }],
      ['a replaced item out of the kept ones', { ...next, keep: 2, set: [[2, '{"kind":"notice","id":"x","text":"x"}']] }],
      ['an item text that is not one object', { ...next, keep: count, append: ['{"kind":"notice","id":"x","text":"x"}],"threads":[{'] }],
      ['an item text that is an array', { ...next, keep: count, append: ['[1,2]'] }],
      ['a rest with items', { ...next, keep: count, rest: '{"items":[]}' }],
      ['a rest that is not JSON', { ...next, keep: count, rest: '{"nextId":' }],
    ];
    for (const [what, patch] of bad) {
      const refused = copy.apply(patch);
      assert.equal(refused.ok, false, what);
      assert.equal(!refused.ok && refused.code, 'INVALID_MESSAGE', what);
    }
    // Nothing was half-applied: the copy is still the last good one, and the next patch fits it.
    s = reduce(s, { type: 'notice', text: 'after the refusals' });
    assert.equal(save(s), transcriptOf(s));
    // A copy the host lost (its thread deleted) refuses the next patch; the view's resync sends it whole.
    copy.forget(THREAD_ID);
    s = reduce(s, { type: 'notice', text: 'after forgetting' });
    sync.save(s, 2);
    const refused = copy.apply(posted.at(-1)!);
    assert.equal(refused.ok, false);
    sync.resync(THREAD_ID);
    s = reduce(s, { type: 'notice', text: 'resynced' });
    assert.equal(save(s), transcriptOf(s));
    assert.equal(posted.at(-1)!.base, null);
    // Patches each within the parser's bounds cannot build a copy past a whole save's bound.
    const big = `{"kind":"notice","id":"big","text":"${'x'.repeat(1_000_000)}"}`;
    let base = posted.at(-1)!.revision;
    let kept = JSON.parse(transcriptOf(s)).items.length as number;
    let grew = 0;
    for (let i = 0; i < 8; i++) {
      const result = copy.apply({ ...next, base, revision: base + 1, keep: kept, append: [big] });
      if (!result.ok) break;
      base += 1;
      kept += 1;
      grew += 1;
    }
    assert.ok(grew <= 3, `${grew} patches of 1 MB each were applied (the bound is ${MAX_TRANSCRIPT_CHARS} characters)`);
    assert.ok(grew >= 1, 'a patch within the bound is applied');
    // A whole transcript that does not hold is refused too, and no copy is kept from it.
    assert.equal(copy.apply({ ...posted.at(-1)!, append: ['nope'] }).ok, false);
    assert.equal(copy.apply({ ...next, base: posted.at(-1)!.revision, revision: posted.at(-1)!.revision + 1, keep: 0 }).ok, false);
  });

  it('bounds the JSON text it gives, not only the texts it joins: a whole transcript or patch within the parser\'s bound whose text would pass MAX_TRANSCRIPT_CHARS is refused, no copy kept', () => {
    const rest = '{"nextId":1}';
    const item = (chars: number) => `{"t":"${'x'.repeat(chars - 8)}"}`;
    const small = Array.from({ length: 100 }, () => item(10));
    // Within the parser's bound (the texts together), but joined with the commas and `{"items":[…]}` it is not.
    const whole: TranscriptPatch = { type: 'transcriptPatch', threadId: THREAD_ID, revision: 1, base: null, drop: 0, keep: 0, set: [], append: [item(MAX_TRANSCRIPT_CHARS - rest.length - 1000), ...small], rest, savedAt: 1 };
    assert.ok(receiveFromWebview(whole).ok);
    const copy = new TranscriptCopy();
    const refused = copy.apply(whole);
    assert.equal(refused.ok, false, refused.ok ? `${refused.json.length} characters given` : '');
    assert.equal(!refused.ok && refused.code, 'INVALID_MESSAGE');
    assert.equal(copy.apply({ ...whole, revision: 2, base: 1, keep: 101, append: [] }).ok, false, 'no copy was kept from it');
    // A patch that brings a copy within the bound to a text a few characters over it.
    const under = MAX_TRANSCRIPT_CHARS - rest.length - 2_000;
    const taken = copy.apply({ ...whole, append: [item(under)] });
    assert.ok(taken.ok && taken.json.length <= MAX_TRANSCRIPT_CHARS);
    const over = copy.apply({ ...whole, revision: 2, base: 1, keep: 1, append: [item(2_000 - 5)] });
    assert.ok(!over.ok || over.json.length <= MAX_TRANSCRIPT_CHARS, over.ok ? `${over.json.length} characters given` : '');
    assert.equal(over.ok, false);
    assert.ok(copy.apply({ ...whole, revision: 2, base: 1, keep: 1, append: [item(100)] }).ok, 'the copy is as it was');
  });

  it('the host\'s parser bounds a patch: items, indices and characters', () => {
    const patch = { type: 'transcriptPatch', threadId: THREAD_ID, revision: 2, base: 1, drop: 0, keep: 0, set: [], append: [], savedAt: 1 };
    assert.ok(receiveFromWebview(patch).ok);
    const refusedWith = (p: unknown): string => {
      const r = receiveFromWebview(p);
      assert.equal(r.ok, false);
      return r.ok ? '' : r.error.code;
    };
    assert.equal(refusedWith({ ...patch, append: Array.from({ length: MAX_TRANSCRIPT_ITEMS + 1 }, () => '{}') }), 'INVALID_MESSAGE');
    assert.equal(refusedWith({ ...patch, drop: MAX_TRANSCRIPT_ITEMS + 1 }), 'INVALID_MESSAGE');
    assert.equal(refusedWith({ ...patch, set: [[-1, '{}']] }), 'INVALID_MESSAGE');
    assert.equal(refusedWith({ ...patch, threadId: '../index' }), 'INVALID_MESSAGE');
    const big = `{"t":"${'x'.repeat(MAX_TRANSCRIPT_CHARS / 2)}"}`;
    assert.equal(refusedWith({ ...patch, append: [big, big] }), 'INVALID_MESSAGE');
    assert.ok(receiveFromWebview({ ...patch, append: [big] }).ok);
  });

  it('the chat\'s threads write the patched transcript to disk as a whole save did, and answer a misfit with a resync, the file untouched', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'transcript-copy-'));
    try {
      let handler: (r: ThreadRequest) => void = () => undefined;
      const resyncs: string[] = [];
      const warnings: string[] = [];
      const chat = {
        onDidThreadRequest: (f: (r: ThreadRequest) => void) => ((handler = f), { dispose: () => undefined }),
        setThreads: () => undefined,
        showThread: () => undefined,
        resyncTranscript: (id: string) => resyncs.push(id),
      } as unknown as ChatViewProvider;
      const threads = new ChatThreads({ dir, chat, log: { warn: (m: string) => warnings.push(m) }, forgetThread: () => undefined });
      const id = threads.currentId;
      const posted: TranscriptPatch[] = [];
      const sync = new TranscriptSync((p) => posted.push(p));
      const file = path.join(dir, `${id}.json`);
      let s = withThread(turns(3).reduce(reduce, initialState()), id);
      for (const step of [0, 1, 2]) {
        if (step > 0) s = reduce(s, { type: 'notice', text: `step ${step}` });
        sync.save(s, step + 1);
        handler(posted.at(-1)!);
        await threads.flush();
        assert.equal(readFileSync(file, 'utf8'), transcriptOf(s), `step ${step}`);
      }
      assert.equal(posted.at(-1)!.base, posted.at(-2)!.revision, 'patches after the first');
      handler({ ...posted.at(-1)!, base: 12, revision: 13 });
      await threads.flush();
      assert.deepEqual(resyncs, [id], 'the view is asked for the whole transcript');
      assert.match(warnings.join('\n'), /INVALID_MESSAGE/);
      assert.equal(readFileSync(file, 'utf8'), transcriptOf(s), 'the file is as the last good save left it');
      sync.resync(id);
      s = reduce(s, { type: 'notice', text: 'after the resync' });
      sync.save(s, 9);
      handler(posted.at(-1)!);
      await threads.flush();
      assert.equal(readFileSync(file, 'utf8'), transcriptOf(s));
      threads.dispose();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a resync is for the page listening now: never kept for a page built later, which sends the whole transcript anyway', () => {
    const outbox = new HostOutbox();
    outbox.keep({ type: 'transcriptResync', threadId: THREAD_ID }, false);
    assert.deepEqual(outbox.replay().filter((m) => m.type === 'transcriptResync'), []);
  });
});
