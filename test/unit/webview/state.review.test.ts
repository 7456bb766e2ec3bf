import assert from 'node:assert/strict';
import { HostToWebview, type ChatReview } from '../../../src/protocol/webview';
import { reviewLabel } from '../../../src/webview/reviewLabel';
import { initialState, reduce, restoreState, transcriptOf, type ChatAction, type ChatState, type ToolItem } from '../../../src/webview/state';
import { ev, record } from './fixtures';

const play = (actions: ChatAction[], from: ChatState = initialState()): ChatState => actions.reduce(reduce, from);
const card = (s: ChatState): ToolItem => s.items.find((i): i is ToolItem => i.kind === 'tool')!;

function review(change: Partial<ChatReview> = {}): ChatAction {
  return HostToWebview.parse({
    type: 'diffReview',
    review: {
      recordId: 'rec-r1',
      reviewId: 'rev-1',
      path: 'hello.txt',
      newFile: false,
      open: true,
      hunks: [
        { header: 'Hunk 1', removed: '', added: 'First\n', state: 'kept' },
        { header: 'Hunk 2', removed: 'old\n', added: 'new\n', state: 'rejected' },
      ],
      moreHunks: 0,
      ...change,
    },
  });
}

const openDiff = (change: Parameters<typeof record>[2] = {}) => record('r1', 'OpenDiff', { groupName: 'Editor', arguments: { path: 'hello.txt', newContent: 'x' }, ...change });
const ended = (value: Record<string, unknown>) => openDiff({ status: 'succeeded', durationMs: 5, content: [{ type: 'json', value }] });

describe('chat state: OpenDiff review cards', () => {
  it('a review goes on its call\'s card, which opens so the choices are in sight, and says it awaits the review', () => {
    const before = play([ev.started(), openDiff({ status: 'running' })]);
    assert.equal(card(before).expanded, false);
    const c = card(reduce(before, review()));
    assert.equal(c.review?.reviewId, 'rev-1');
    assert.deepEqual(c.review?.hunks.map((h) => h.state), ['kept', 'rejected']);
    assert.equal(c.expanded, true);
    assert.equal(reviewLabel(c), 'Awaiting your review');
  });

  it('a review\'s warning of lines the editor does not draw whole reaches its card', () => {
    const warning = 'Line 2 of the proposal is longer than the editor draws of a line (its first 10,000 characters, editor.stopRenderingLineAfter, unless it wraps lines; it has 10,120): the rest of it may not be shown in the diff, and Accept writes it all the same.';
    const c = card(play([ev.started(), openDiff({ status: 'running' }), review({ warning })]));
    assert.equal(c.review?.warning, warning);
    assert.equal(HostToWebview.safeParse({ type: 'diffReview', review: { ...c.review, warning: 'x'.repeat(2001) } }).success, false);
  });

  it('a review for no card changes nothing', () => {
    const before = play([ev.started(), openDiff({ status: 'running' })]);
    assert.equal(reduce(before, review({ recordId: 'other' })), before);
  });

  it('the ended card says Accepted, Partly accepted or Rejected from the extension\'s own result, never Succeeded for a rejection', () => {
    const label = (value: Record<string, unknown>) => reviewLabel(card(play([ev.started(), openDiff({ status: 'running' }), review(), review({ open: false }), ended(value)])));
    assert.equal(label({ path: 'hello.txt', decision: 'accepted' }), 'Accepted');
    assert.equal(label({ path: 'hello.txt', decision: 'partial', keptHunks: [1], rejectedHunks: [2] }), 'Partly accepted');
    assert.equal(label({ path: 'hello.txt', decision: 'rejected' }), 'Rejected');
    assert.equal(label({ path: 'hello.txt', decision: 'rejected', unchanged: true }), 'Unchanged');
  });

  it('a rename or code action reviewed across files says Rejected or Partly accepted too, its hunks named by file', () => {
    const rename = (change: Parameters<typeof record>[2] = {}) => record('r1', 'RenameSymbol', { groupName: 'Language', arguments: { symbol: 'greet', newName: 'salute' }, ...change });
    const multi = review({ path: '2 files (src/a.ts, src/b.ts)', hunks: [{ header: 'src/a.ts, hunk 1', removed: 'greet\n', added: 'salute\n', state: 'kept' }] });
    const open = card(play([ev.started(), rename({ status: 'running' }), multi]));
    assert.equal(reviewLabel(open), 'Awaiting your review');
    assert.equal(open.review?.hunks[0].header, 'src/a.ts, hunk 1');
    const ended = (decision: string) => reviewLabel(card(play([ev.started(), rename({ status: 'running' }), multi, rename({ status: 'succeeded', durationMs: 5, content: [{ type: 'json', value: { decision } }] })])));
    assert.equal(ended('rejected'), 'Rejected');
    assert.equal(ended('partial'), 'Partly accepted');
  });

  it('other tools and failed reviews keep their usual status words', () => {
    const failed = card(play([ev.started(), openDiff({ status: 'failed', errorCode: 'TARGET_CHANGED', errorMessage: 'changed' })]));
    assert.equal(reviewLabel(failed), undefined);
    const read = card(play([ev.started(), record('r2', 'ReadFile', { status: 'succeeded', content: [{ type: 'json', value: { decision: 'rejected' } }] })]));
    assert.equal(reviewLabel(read), undefined);
  });

  it('a saved transcript keeps the review and restores it', () => {
    const s = play([ev.started(), openDiff({ status: 'running' }), review()]);
    assert.equal(card(restoreState(JSON.parse(transcriptOf(s)))).review?.path, 'hello.txt');
  });
});
