/**
 * An agent that writes on its own once its edit is allowed (opencode: a permission request with the
 * diff, then its own write, and an fs/write_text_file sent alongside), scripted over a real ACP
 * stream with its preset's `reviewEditPermissions`: the permission request is the per-hunk review.
 * Every hunk kept allows it and answers its write from that decision (no second review); none kept
 * rejects it with the reason; some kept rejects it, the editor writes the kept hunks, and the agent's
 * next prompt says which hunks of which file were written.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { PLAIN_LAUNCH, PRESET_LAUNCHES } from '../../../src/agents/presetLaunch';
import type { AcpHarness } from '../../support/agents/acp-harness';
import { EDITOR_WRITES_LAUNCH, editPermission, patchPermission, promptsOf, startReviewHarness } from '../../support/agents/edit-review';

const BASE = 'one\ntwo\nthree\n';
const PROPOSED = 'ONE\ntwo\nTHREE\n';

describe('agent edits decided in their permission request: the prompt is the per-hunk review', () => {
  let h: AcpHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('every hunk kept: the review wrote the proposal, the agent is allowed once, and its fs/write_text_file is answered from that decision (no second review)', async () => {
    h = await startReviewHarness([editPermission('__CWD__/a.txt', BASE, PROPOSED), { call: 'fs/write_text_file', params: { path: '__CWD__/a.txt', content: PROPOSED }, as: 'write' }]);
    const turn = h.prompt('edit');
    const diff = await h.ws.host.catalog.nextDiff();
    assert.equal(diff.request.current, BASE);
    assert.equal(diff.request.proposed, PROPOSED);
    diff.accept();
    await turn;
    assert.deepEqual(h.answer('perm')?.result, { outcome: { outcome: 'selected', optionId: 'once' } });
    assert.deepEqual(h.answer('write')?.result, {});
    assert.equal(await readFile(h.ws.file('a.txt'), 'utf8'), PROPOSED);
    assert.equal(h.ws.host.catalog.diffs.length, 1, 'one review: the write was not reviewed again');
    assert.equal(h.ws.host.prompts.length, 0, 'and no permission prompt besides the review');
    assert.equal(promptsOf(h).length, 1, 'nothing to tell the agent');
  });

  it('some hunks kept: the agent is rejected, the editor writes only the kept hunk, and the agent\'s next prompt says which hunks of which file, with the reason', async () => {
    h = await startReviewHarness([editPermission('__CWD__/a.txt', BASE, PROPOSED)]);
    const turn = h.prompt('edit');
    (await h.ws.host.catalog.nextDiff()).accept('ONE\ntwo\nthree\n', 'keep the last line');
    await turn;
    assert.deepEqual(h.answer('perm')?.result, { outcome: { outcome: 'selected', optionId: 'reject' } });
    assert.equal(await readFile(h.ws.file('a.txt'), 'utf8'), 'ONE\ntwo\nthree\n');
    const prompts = promptsOf(h);
    assert.equal(prompts.length, 2, 'the chat told the agent at the end of its turn');
    assert.match(prompts[1] ?? '', /^Sent by the editor, not typed by the user: what the user decided on your requests/);
    assert.match(prompts[1] ?? '', /The user reviewed your change to a\.txt hunk by hunk, so your own write did not happen: the editor wrote hunk 1 and not hunk 2, with this reason: "keep the last line"\. The file now holds only what the user kept/);
  });

  it('no hunk kept: the agent is rejected, nothing is written, and the reason reaches it as a declined change', async () => {
    h = await startReviewHarness([editPermission('__CWD__/a.txt', BASE, PROPOSED)]);
    const turn = h.prompt('edit');
    (await h.ws.host.catalog.nextDiff()).reject('not this file');
    await turn;
    assert.deepEqual(h.answer('perm')?.result, { outcome: { outcome: 'selected', optionId: 'reject' }, _meta: { clientTools: { reason: 'not this file' } } });
    assert.equal(await readFile(h.ws.file('a.txt'), 'utf8'), BASE);
    assert.match(promptsOf(h)[1] ?? '', /The user declined your request to change a file, with this reason: "not this file"/);
  });

  it('a new file: the review creates it when kept', async () => {
    h = await startReviewHarness([editPermission('__CWD__/new.txt', null, 'fresh\n')]);
    const turn = h.prompt('edit');
    (await h.ws.host.catalog.nextDiff()).accept();
    await turn;
    assert.equal(h.answer('perm')?.result && (h.answer('perm')?.result as { outcome: { optionId: string } }).outcome.optionId, 'once');
    assert.equal(await readFile(h.ws.file('new.txt'), 'utf8'), 'fresh\n');
  });

  it('editor-writes (Codex): every hunk kept, the editor writes it and the agent is still rejected (its patch would not apply to the written file), then told every hunk was written', async () => {
    h = await startReviewHarness([editPermission('__CWD__/a.txt', BASE, PROPOSED)], { 'a.txt': BASE }, EDITOR_WRITES_LAUNCH);
    const turn = h.prompt('edit');
    (await h.ws.host.catalog.nextDiff()).accept();
    await turn;
    assert.deepEqual(h.answer('perm')?.result, { outcome: { outcome: 'selected', optionId: 'reject' } });
    assert.equal(await readFile(h.ws.file('a.txt'), 'utf8'), PROPOSED);
    assert.match(promptsOf(h)[1] ?? '', /The user reviewed your change to a\.txt hunk by hunk, so your own write did not happen: the editor wrote every hunk \(hunks 1, 2\)\. The file now holds only what the user kept/);
  });

  it('editor-writes (Codex): a patch sent as one diff per hunk (fragments) is reviewed as the whole file with the hunks in place; the kept hunk is written and the agent told', async () => {
    const file = 'alpha\nbeta\ngamma\ndelta\nepsilon\n';
    h = await startReviewHarness([patchPermission('__CWD__/notes.txt', [{ oldText: 'alpha\nbeta', newText: 'ALPHA\nbeta' }, { oldText: 'delta\nepsilon', newText: 'delta\nEPSILON' }])], { 'notes.txt': file }, EDITOR_WRITES_LAUNCH);
    const turn = h.prompt('edit');
    const diff = await h.ws.host.catalog.nextDiff();
    assert.equal(diff.request.current, file);
    assert.equal(diff.request.proposed, 'ALPHA\nbeta\ngamma\ndelta\nEPSILON\n');
    diff.accept('ALPHA\nbeta\ngamma\ndelta\nepsilon\n', 'keep the last line');
    await turn;
    assert.deepEqual(h.answer('perm')?.result, { outcome: { outcome: 'selected', optionId: 'abort' } });
    assert.equal(await readFile(h.ws.file('notes.txt'), 'utf8'), 'ALPHA\nbeta\ngamma\ndelta\nepsilon\n');
    assert.match(promptsOf(h)[1] ?? '', /the editor wrote hunk 1 and not hunk 2, with this reason: "keep the last line"/);
  });

  it('the presets: opencode\'s edit request allows its own write when whole, Codex\'s never; the others have no review in the request', () => {
    assert.equal(PRESET_LAUNCHES['opencode-ai']?.reviewEditPermissions, 'allow-whole');
    assert.equal(PRESET_LAUNCHES['@zed-industries/codex-acp']?.reviewEditPermissions, 'editor-writes');
    for (const name of ['@zed-industries/claude-code-acp', '@agentclientprotocol/claude-agent-acp', '@google/gemini-cli']) assert.equal(PRESET_LAUNCHES[name]?.reviewEditPermissions, undefined, name);
  });

  it('an agent without the preset\'s option gets the ordinary permission prompt for its edit (no review in the request)', async () => {
    h = await startReviewHarness([editPermission('__CWD__/a.txt', BASE, PROPOSED)], { 'a.txt': BASE }, PLAIN_LAUNCH);
    await h.prompt('edit');
    assert.equal(h.ws.host.catalog.diffs.length, 0);
    assert.match(h.ws.host.prompts[0]?.message ?? '', /change a\.txt\?/);
    assert.equal(await readFile(h.ws.file('a.txt'), 'utf8'), BASE);
  });
});
