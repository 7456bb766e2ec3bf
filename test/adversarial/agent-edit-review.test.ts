/**
 * A hostile agent against the per-hunk review in its edit's permission request (src/agents/editReview.ts,
 * the opencode preset's `reviewEditPermissions`): a diff whose base is not what the file holds, a path
 * outside the workspace, a protected file, a diff larger than the review shows, a write that is not
 * what the user approved. Each: a coded error (or the agent's reject), nothing written.
 */
import assert from 'node:assert/strict';
import { readFile, truncate, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { MAX_REVIEWED_CHARS } from '../../src/agents/editReview';
import type { AcpHarness } from '../support/agents/acp-harness';
import { EDITOR_WRITES_LAUNCH, editPermission, patchPermission, promptsOf, startReviewHarness } from '../support/agents/edit-review';

const BASE = 'one\ntwo\nthree\n';

describe('rogue agent: an edit decided in its permission request (opencode, Codex)', () => {
  let h: AcpHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('T-ACPE-01: a diff whose base is not what the file holds is refused with TARGET_CHANGED before any review; nothing written', async () => {
    h = await startReviewHarness([editPermission('__CWD__/a.txt', 'what the agent claims\n', 'EVIL\n')]);
    await h.prompt('edit');
    assert.equal(h.answer('perm')?.error?.data?.code, 'TARGET_CHANGED');
    assert.equal(h.ws.host.catalog.diffs.length, 0, 'no review opened for a diff that is not the file\'s');
    assert.equal(await readFile(h.ws.file('a.txt'), 'utf8'), BASE);
  });

  it('T-ACPE-01b: a "new file" diff for a file that exists is refused the same way', async () => {
    h = await startReviewHarness([editPermission('__CWD__/a.txt', null, 'EVIL\n')]);
    await h.prompt('edit');
    assert.equal(h.answer('perm')?.error?.data?.code, 'TARGET_CHANGED');
    assert.equal(await readFile(h.ws.file('a.txt'), 'utf8'), BASE);
  });

  it('T-ACPE-02: a path outside the workspace is PATH_OUTSIDE_WORKSPACE; nothing asked or written', async () => {
    h = await startReviewHarness([editPermission('__CWD__/../outside.txt', null, 'EVIL\n')]);
    await h.prompt('edit');
    assert.equal(h.answer('perm')?.error?.data?.code, 'PATH_OUTSIDE_WORKSPACE');
    assert.equal(h.ws.host.catalog.diffs.length, 0);
    await assert.rejects(readFile(path.join(path.dirname(h.ws.file('a.txt')), '..', 'outside.txt'), 'utf8'), { code: 'ENOENT' });
  });

  it('T-ACPE-03: a protected file is asked about first (OpenDiff\'s rule); declined, the agent is rejected and nothing is written', async () => {
    h = await startReviewHarness([editPermission('__CWD__/.env', 'TOKEN=1\n', 'TOKEN=stolen\n')], { '.env': 'TOKEN=1\n' });
    h.ws.host.answerPrompts('deny');
    await h.prompt('edit');
    assert.match(h.ws.host.prompts[0]?.message ?? '', /\.env/);
    assert.equal(h.ws.host.catalog.diffs.length, 0, 'no review behind a declined protected-file prompt');
    const answer = h.answer('perm');
    assert.ok(answer?.error?.data?.code === 'PERMISSION_DENIED' || (answer?.result as { outcome?: { optionId?: string } } | undefined)?.outcome?.optionId === 'reject', JSON.stringify(answer));
    assert.equal(await readFile(h.ws.file('.env'), 'utf8'), 'TOKEN=1\n');
  });

  it('T-ACPE-03b: a protected file is not read before the user is asked: a base that does not match still gets the protected-file prompt first (no TARGET_CHANGED answering, unasked, what the file holds), and a patch in pieces for it is refused unread; nothing written', async () => {
    h = await startReviewHarness([editPermission('__CWD__/.env', 'TOKEN=guess\n', 'TOKEN=stolen\n')], { '.env': 'TOKEN=1\n' });
    h.ws.host.answerPrompts('deny');
    await h.prompt('edit');
    assert.match(h.ws.host.prompts[0]?.message ?? '', /\.env/);
    const answer = h.answer('perm');
    assert.notEqual(answer?.error?.data?.code, 'TARGET_CHANGED', JSON.stringify(answer));
    assert.equal(h.ws.host.catalog.diffs.length, 0);
    assert.equal(await readFile(h.ws.file('.env'), 'utf8'), 'TOKEN=1\n');
    await h.close();

    h = await startReviewHarness([patchPermission('__CWD__/.env', [{ oldText: 'TOKEN=1', newText: 'TOKEN=2' }])], { '.env': 'TOKEN=1\n' }, EDITOR_WRITES_LAUNCH);
    await h.prompt('edit');
    assert.equal(h.answer('perm')?.error?.data?.code, 'PERMISSION_DENIED');
    assert.equal(h.ws.host.prompts.length, 0);
    assert.equal(await readFile(h.ws.file('.env'), 'utf8'), 'TOKEN=1\n');
  });

  it('T-ACPE-04b: a file past what a review takes (here 17 MiB, a sparse file) is FILE_TOO_LARGE before it is read; nothing asked or written', async () => {
    h = await startReviewHarness([patchPermission('__CWD__/big.log', [{ oldText: 'x', newText: 'y' }])], { 'a.txt': BASE }, EDITOR_WRITES_LAUNCH);
    await writeFile(h.ws.file('big.log'), '');
    await truncate(h.ws.file('big.log'), 17 * 1024 * 1024);
    await h.prompt('edit');
    assert.equal(h.answer('perm')?.error?.data?.code, 'FILE_TOO_LARGE');
    assert.equal(h.ws.host.prompts.length, 0);
    assert.equal(h.ws.host.catalog.diffs.length, 0);
  });

  it('T-ACPE-04: a diff as long as the session clips (the review would not hold it whole) is CHANGE_TOO_LARGE; nothing asked or written', async () => {
    h = await startReviewHarness([editPermission('__CWD__/a.txt', BASE, 'x'.repeat(MAX_REVIEWED_CHARS))]);
    await h.prompt('edit');
    assert.equal(h.answer('perm')?.error?.data?.code, 'CHANGE_TOO_LARGE');
    assert.equal(h.ws.host.catalog.diffs.length, 0);
    assert.equal(await readFile(h.ws.file('a.txt'), 'utf8'), BASE);
  });

  it('T-ACPE-05: an fs/write_text_file that is not the change the user approved is PERMISSION_DENIED and writes nothing', async () => {
    h = await startReviewHarness([
      editPermission('__CWD__/a.txt', BASE, 'ONE\ntwo\nthree\n'),
      { call: 'fs/write_text_file', params: { path: '__CWD__/a.txt', content: 'EVIL\n' }, as: 'write' },
    ]);
    const turn = h.prompt('edit');
    (await h.ws.host.catalog.nextDiff()).accept();
    await turn;
    assert.equal(h.answer('write')?.error?.data?.code, 'PERMISSION_DENIED');
    assert.equal(h.ws.host.catalog.diffs.length, 1, 'not turned into a second review either');
    assert.equal(await readFile(h.ws.file('a.txt'), 'utf8'), 'ONE\ntwo\nthree\n');
  });

  it('T-ACPE-06: the approved write after the file changed again is TARGET_CHANGED and writes nothing', async () => {
    h = await startReviewHarness([
      editPermission('__CWD__/a.txt', BASE, 'ONE\ntwo\nthree\n'),
      { sleep: 1_500 },
      { call: 'fs/write_text_file', params: { path: '__CWD__/a.txt', content: 'ONE\ntwo\nthree\n' }, as: 'write' },
    ]);
    const turn = h.prompt('edit');
    (await h.ws.host.catalog.nextDiff()).accept();
    // Someone else changes the file between the decision and the agent's write (the script waits 1.5 s).
    while (h.answer('perm') === undefined) await new Promise((r) => setTimeout(r, 20));
    await writeFile(h.ws.file('a.txt'), 'someone else\n');
    await turn;
    assert.equal(h.answer('write')?.error?.data?.code, 'TARGET_CHANGED');
    assert.equal(await readFile(h.ws.file('a.txt'), 'utf8'), 'someone else\n');
  });

  it('T-ACPE-07: the message for a partial write is the editor\'s words: a file name with line breaks and bidi controls is one line', async () => {
    h = await startReviewHarness([editPermission('__CWD__/a.txt', BASE, 'ONE\ntwo\nTHREE\n')]);
    const turn = h.prompt('edit');
    (await h.ws.host.catalog.nextDiff()).accept('ONE\ntwo\nthree\n', 'first\nline\u202e two');
    await turn;
    const told = promptsOf(h)[1] ?? '';
    assert.equal(told.split('\n').length, 2, told);
    assert.match(told, /with this reason: "first line two"/);
  });

  it('T-ACPE-08: a patch whose hunk\'s old text occurs twice in the file (or not at all, or overlapping another) says nothing certain about where it goes: TARGET_CHANGED, nothing asked or written', async () => {
    for (const hunks of [
      [{ oldText: 'x\n', newText: 'EVIL\n' }],
      [{ oldText: 'not in the file', newText: 'EVIL' }],
      [{ oldText: 'x\ny', newText: 'X\nY' }, { oldText: 'y\nz', newText: 'Y\nZ' }],
      [{ oldText: '', newText: 'EVIL' }],
    ]) {
      h = await startReviewHarness([patchPermission('__CWD__/a.txt', hunks)], { 'a.txt': 'x\ny\nz\nx\n' }, EDITOR_WRITES_LAUNCH);
      await h.prompt('edit');
      assert.equal(h.answer('perm')?.error?.data?.code, 'TARGET_CHANGED', JSON.stringify(hunks));
      assert.equal(h.ws.host.catalog.diffs.length, 0);
      assert.equal(await readFile(h.ws.file('a.txt'), 'utf8'), 'x\ny\nz\nx\n');
      await h.close();
      h = undefined;
    }
  });
});
