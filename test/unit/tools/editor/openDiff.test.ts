import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { COARSE_REVIEW_NOTE } from '../../../../src/core/hunkReview';
import { MAX_TABLE_CELLS } from '../../../../src/core/lineDiff';
import { ErrorCode, type ClientToolInvokeResponse } from '../../../../src/protocol';
import { EDITOR_GROUP, EDITOR_TOOLS } from '../../../../src/tools/editor/group';
import { DispatchHarness, until } from '../../../support/dispatch-harness';
import { createTempWorkspace, type TempWorkspace } from '../../../support/fake-host';

function value(r: ClientToolInvokeResponse): Record<string, unknown> {
  assert.equal(r.success, true, r.errorMessage);
  const item = r.content[0];
  assert.ok(item && item.type === 'json');
  return item.value as Record<string, unknown>;
}

describe('tool OpenDiff', () => {
  let ws: TempWorkspace;
  let h: DispatchHarness;
  beforeEach(async () => {
    ws = await createTempWorkspace(['ws'], { 'src/a.ts': 'const a = 1;\n', '.vscode/settings.json': '{}\n', 'dir/x.txt': 'x' });
    h = new DispatchHarness({ host: ws.host, group: EDITOR_GROUP, tools: EDITOR_TOOLS });
  });
  afterEach(async () => {
    h.dispose();
    await ws.dispose();
  });

  it('opens a diff of the file against the proposal and writes the accepted text, with the user\'s own edits', async () => {
    const id = h.invoke('OpenDiff', { path: 'src/a.ts', newContent: 'const a = 2;\n' });
    const diff = await ws.host.catalog.nextDiff();
    assert.equal(diff.request.path, ws.file('src/a.ts'));
    assert.equal(diff.request.exists, true);
    assert.equal(diff.request.proposed, 'const a = 2;\n');
    assert.match(diff.request.message, /src\/a\.ts/);
    diff.accept('const a = 3; // mine\n');
    const v = value(await h.response(id));
    // The user's own edit replaced the one hunk: it is named as edited, and the edit itself is in the result.
    assert.deepEqual(v, {
      path: 'src/a.ts',
      decision: 'accepted',
      hunks: [{ hunk: 1, lines: '@@ -1 +1 @@', decision: 'edited' }],
      keptHunks: [],
      rejectedHunks: [],
      content: 'const a = 3; // mine\n',
      editedByUser: true,
      userEdits: '@@ -1 +1 @@\n-const a = 2;\n+const a = 3; // mine',
    });
    assert.equal(await readFile(ws.file('src/a.ts'), 'utf8'), 'const a = 3; // mine\n');
    assert.equal(h.progress(id)[0]?.status, 'running');
  });

  it('an auto-save of the reviewed buffer during the review is not a change: Accept still writes', async () => {
    await ws.host.catalog.open(ws.file('src/a.ts'), 'const a = 1; // unsaved\n');
    const id = h.invoke('OpenDiff', { path: 'src/a.ts', newContent: 'const a = 2;\n' });
    const diff = await ws.host.catalog.nextDiff();
    await writeFile(ws.file('src/a.ts'), 'const a = 1; // unsaved\n'); // the editor saved the same text: new mtime and size
    diff.accept();
    assert.equal(value(await h.response(id)).decision, 'accepted');
    assert.equal(await readFile(ws.file('src/a.ts'), 'utf8'), 'const a = 2;\n');
  });

  it('the buffer edited by the user during the review is a change: Accept writes nothing and answers TARGET_CHANGED', async () => {
    await ws.host.catalog.open(ws.file('src/a.ts'));
    const id = h.invoke('OpenDiff', { path: 'src/a.ts', newContent: 'const a = 2;\n' });
    const diff = await ws.host.catalog.nextDiff();
    await ws.host.catalog.open(ws.file('src/a.ts'), 'const a = 1; // typed meanwhile\n');
    diff.accept();
    assert.equal((await h.response(id)).errorCode, ErrorCode.TargetChanged);
    assert.equal(await readFile(ws.file('src/a.ts'), 'utf8'), 'const a = 1;\n');
    assert.deepEqual(ws.host.catalog.writes, []);
  });

  it('per hunk: the result names the hunks kept and rejected, and carries the user\'s reason', async () => {
    await writeFile(ws.file('src/a.ts'), 'one\ntwo\nthree\nfour\nfive\n');
    const records: string[] = [];
    h.dispatcher.onCallRecord((r) => records.push(r.recordId));
    const id = h.invoke('OpenDiff', { path: 'src/a.ts', newContent: 'ONE\ntwo\nthree\nfour\nFIVE\n' });
    const diff = await ws.host.catalog.nextDiff();
    assert.equal(diff.request.current, 'one\ntwo\nthree\nfour\nfive\n');
    assert.equal(diff.request.recordId, records[0], 'the review names its call\'s card');
    diff.accept('one\ntwo\nthree\nfour\nFIVE\n', 'keep the first line lower case');
    assert.deepEqual(value(await h.response(id)), {
      path: 'src/a.ts',
      decision: 'partial',
      hunks: [{ hunk: 1, lines: '@@ -1 +1 @@', decision: 'rejected' }, { hunk: 2, lines: '@@ -5 +5 @@', decision: 'kept' }],
      keptHunks: [2],
      rejectedHunks: [1],
      content: 'one\ntwo\nthree\nfour\nFIVE\n',
      editedByUser: false,
      reason: 'keep the first line lower case',
    });
    assert.equal(await readFile(ws.file('src/a.ts'), 'utf8'), 'one\ntwo\nthree\nfour\nFIVE\n');
  });

  it('works out the hunks once and hands them to the review: the host is given the review whose hunks the result then names', async () => {
    await writeFile(ws.file('src/a.ts'), 'one\ntwo\nthree\nfour\nfive\n');
    const id = h.invoke('OpenDiff', { path: 'src/a.ts', newContent: 'ONE\ntwo\nthree\nfour\nFIVE\n' });
    const diff = await ws.host.catalog.nextDiff();
    assert.deepEqual(diff.request.review.hunks, [{ aStart: 0, aEnd: 1, bStart: 0, bEnd: 1 }, { aStart: 4, aEnd: 5, bStart: 4, bEnd: 5 }]);
    assert.equal(diff.request.review.coarse, false);
    assert.doesNotMatch(diff.request.message, /too large/);
    diff.accept();
    const v = value(await h.response(id));
    assert.deepEqual(v.hunks, [{ hunk: 1, lines: '@@ -1 +1 @@', decision: 'kept' }, { hunk: 2, lines: '@@ -5 +5 @@', decision: 'kept' }]);
    assert.equal(v.message, undefined);
  });

  it('a change too large to compare line by line is reviewed as larger hunks, and the review and the result say so', async () => {
    const side = Math.ceil(Math.sqrt(MAX_TABLE_CELLS)) + 1;
    await writeFile(ws.file('src/a.ts'), Array.from({ length: side }, (_, i) => `${i % 3}\n`).join(''));
    const id = h.invoke('OpenDiff', { path: 'src/a.ts', newContent: Array.from({ length: side }, (_, i) => `${(i + 1) % 4}\n`).join('') });
    const diff = await ws.host.catalog.nextDiff();
    assert.equal(diff.request.review.coarse, true);
    assert.ok(diff.request.message.endsWith(COARSE_REVIEW_NOTE), diff.request.message);
    diff.accept();
    const v = value(await h.response(id));
    assert.equal(v.decision, 'accepted');
    assert.equal(v.message, COARSE_REVIEW_NOTE);
  });

  it('Accept with every hunk taken back writes nothing and says rejected', async () => {
    const id = h.invoke('OpenDiff', { path: 'src/a.ts', newContent: 'const a = 2;\n' });
    (await ws.host.catalog.nextDiff()).accept('const a = 1;\n');
    assert.deepEqual(value(await h.response(id)), { path: 'src/a.ts', decision: 'rejected', rejectedHunks: [1] });
    assert.deepEqual(ws.host.catalog.writes, []);
  });

  it('a rejection carries the user\'s reason to the model', async () => {
    const id = h.invoke('OpenDiff', { path: 'src/a.ts', newContent: 'nope\n' });
    (await ws.host.catalog.nextDiff()).reject('wrong file');
    assert.deepEqual(value(await h.response(id)), { path: 'src/a.ts', decision: 'rejected', reason: 'wrong file' });
  });

  it('a rejected diff changes nothing and says rejected', async () => {
    const id = h.invoke('OpenDiff', { path: 'src/a.ts', newContent: 'nope\n' });
    (await ws.host.catalog.nextDiff()).reject();
    assert.deepEqual(value(await h.response(id)), { path: 'src/a.ts', decision: 'rejected' });
    assert.equal(await readFile(ws.file('src/a.ts'), 'utf8'), 'const a = 1;\n');
    assert.equal(ws.host.catalog.writes.length, 0);
  });

  it('creates a missing file when accepted, diffing against an empty document', async () => {
    const id = h.invoke('OpenDiff', { path: 'src/new.ts', newContent: 'export {};\n' });
    const diff = await ws.host.catalog.nextDiff();
    assert.equal(diff.request.exists, false);
    diff.accept();
    const v = value(await h.response(id));
    assert.equal(v.editedByUser, false);
    assert.equal(v.newFile, true);
    assert.equal(v.decision, 'accepted');
    assert.equal(await readFile(ws.file('src/new.ts'), 'utf8'), 'export {};\n');
  });

  it('serialises diffs of the same file: the second opens only after the first is decided', async () => {
    const ids = { 'one\n': h.invoke('OpenDiff', { path: 'src/a.ts', newContent: 'one\n' }), 'two\n': h.invoke('OpenDiff', { path: 'src/a.ts', newContent: 'two\n' }) };
    const other = h.invoke('OpenDiff', { path: 'src/b.ts', newContent: 'b\n' });
    const opened = [await ws.host.catalog.nextDiff(), await ws.host.catalog.nextDiff()];
    const first = opened.find((d) => d.request.path === ws.file('src/a.ts'));
    const forB = opened.find((d) => d.request.path === ws.file('src/b.ts'));
    assert.ok(first && forB, 'one diff of a.ts and the diff of b.ts open at once: another file does not wait');
    const laterProposal = first.request.proposed === 'one\n' ? 'two\n' : 'one\n';
    const waiting = ids[laterProposal as keyof typeof ids];
    await until(() => h.progress(waiting).some((p) => /waiting/.test(p.details ?? '')), 2000, 'waiting progress');
    assert.equal(ws.host.catalog.diffs.length, 2);
    first.accept();
    await h.response(ids[first.request.proposed as keyof typeof ids]);
    const second = await ws.host.catalog.nextDiff();
    assert.equal(second.request.proposed, laterProposal);
    second.reject();
    forB.reject();
    assert.equal(value(await h.response(waiting)).decision, 'rejected');
    await h.response(other);
    assert.equal(ws.host.catalog.maxOpenDiffsPerPath, 1);
    assert.equal(await readFile(ws.file('src/a.ts'), 'utf8'), first.request.proposed);
  });

  it('a cancelled call closes its diff and writes nothing; a queued one leaves the queue', async () => {
    const ids = { 'one\n': h.invoke('OpenDiff', { path: 'src/a.ts', newContent: 'one\n' }), 'two\n': h.invoke('OpenDiff', { path: 'src/a.ts', newContent: 'two\n' }) };
    const open = await ws.host.catalog.nextDiff();
    const openId = ids[open.request.proposed as keyof typeof ids];
    const queuedId = openId === ids['one\n'] ? ids['two\n'] : ids['one\n'];
    await until(() => h.progress(queuedId).some((p) => /waiting/.test(p.details ?? '')), 2000, 'the second call queued');
    h.dispatcher.handleCancel({ type: 'clientToolCancel', requestId: queuedId });
    assert.equal((await h.response(queuedId)).errorCode, ErrorCode.Cancelled);
    h.dispatcher.handleCancel({ type: 'clientToolCancel', requestId: openId });
    assert.equal((await h.response(openId)).errorCode, ErrorCode.Cancelled);
    assert.equal(await open.closed, 'aborted');
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(ws.host.catalog.diffs.length, 1, 'the queued diff never opened');
    assert.equal(await readFile(ws.file('src/a.ts'), 'utf8'), 'const a = 1;\n');
  });

  it('says unchanged without opening a diff when the proposal equals the file', async () => {
    const v = value(await h.call('OpenDiff', { path: 'src/a.ts', newContent: 'const a = 1;\r\n' }));
    assert.equal(v.unchanged, true);
    assert.equal(ws.host.catalog.diffs.length, 0);
  });

  it('asks before proposing changes to a protected file; a deny opens nothing', async () => {
    ws.host.answerPrompts('deny');
    const r = await h.call('OpenDiff', { path: '.vscode/settings.json', newContent: '{"x":1}\n' });
    assert.equal(r.errorCode, ErrorCode.PermissionDenied);
    assert.match(ws.host.prompts[0].message, /\.vscode\/settings\.json/);
    assert.equal(ws.host.prompts[0].offerAllowSession, false);
    assert.equal(ws.host.catalog.diffs.length, 0);
  });

  it('refuses folders and paths outside the workspace before opening anything', async () => {
    assert.equal((await h.call('OpenDiff', { path: 'dir', newContent: '' })).errorCode, ErrorCode.IsDirectory);
    assert.equal((await h.call('OpenDiff', { path: '../evil.ts', newContent: '' })).errorCode, ErrorCode.PathOutsideWorkspace);
    assert.equal(existsSync(ws.file('../evil.ts')), false);
    assert.equal(ws.host.catalog.diffs.length, 0);
  });

  it('is off in restricted mode', async () => {
    h.registry.setWorkspaceTrusted(false);
    assert.equal((await h.call('OpenDiff', { path: 'src/a.ts', newContent: 'x' })).errorCode, ErrorCode.WorkspaceUntrusted);
  });
});
