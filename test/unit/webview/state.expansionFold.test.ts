import assert from 'node:assert/strict';
import { describeFold, foldedAway, foldNote } from '../../../src/webview/expansionFold';
import { initialState, reduce, restoreState, transcriptOf, type ChatAction, type ChatItem, type ChatState, type ToolItem } from '../../../src/webview/state';
import { toFunctionName } from '../../../src/protocol/functionNames';
import { HostToWebview } from '../../../src/protocol/webview';
import { ev, record } from './fixtures';

const play = (actions: ChatAction[], from: ChatState = initialState()): ChatState => actions.reduce(reduce, from);
const showSteps = (show: boolean): ChatAction => HostToWebview.parse({ type: 'displaySettings', showExpansionSteps: show });
/** What the view lists: the items the renderer does not leave out, as "kind:name". */
const shown = (s: ChatState): string[] => s.items.filter((it) => !foldedAway(it, s)).map(label);
const label = (it: ChatItem): string => (it.kind === 'tool' ? `tool:${it.toolName}` : it.kind === 'expansion' ? `expansion:${it.group}` : it.kind);
const toolCard = (s: ChatState, name: string): ToolItem => {
  const c = s.items.find((it): it is ToolItem => it.kind === 'tool' && it.toolName === name);
  assert.ok(c, `no card for ${name}`);
  return c;
};

/** The backend expands the IDE group (its card, the event, the card's end), then the editor runs OpenFile and GetSelection. */
const IDE_RUN: ChatAction[] = [
  ev.started(),
  ev.toolStarted('call-ide', 'IDE', {}, { group: 'IDE' }),
  ev.expanded('IDE', ['OpenFile', 'GetSelection', 'ShowMessage']),
  ev.toolEnded('call-ide', 'succeeded', 0, [{ type: 'text', text: 'IDE tools are now available.' }]),
  ev.toolStarted('call-open', 'OpenFile', { path: 'README.md' }, { executor: 'client', group: 'IDE' }),
  record('r1', 'OpenFile', { callId: 'call-open', arguments: { path: 'README.md' }, status: 'running' }),
  record('r1', 'OpenFile', { callId: 'call-open', arguments: { path: 'README.md' }, status: 'succeeded', durationMs: 5 }),
  record('r2', 'GetSelection', { callId: 'call-sel', status: 'succeeded', durationMs: 1 }),
];

describe('chat state: expansion steps folded into the tool card (clientTools.chat.showExpansionSteps)', () => {
  it('by default shows neither the group card nor the expansion line; the first card of the group names what was loaded', () => {
    const s = play(IDE_RUN);
    assert.equal(s.showExpansionSteps, false);
    assert.deepEqual(shown(s), ['tool:OpenFile', 'tool:GetSelection']);
    assert.equal(foldNote(toolCard(s, 'OpenFile'), s), 'Loaded the IDE group: OpenFile, GetSelection, ShowMessage');
    assert.equal(foldNote(toolCard(s, 'GetSelection'), s), undefined, 'only the first card of the group carries the note');
  });

  it('with the setting on shows exactly the steps as before (group card, expansion line) and no note', () => {
    const s = play([showSteps(true), ...IDE_RUN]);
    assert.deepEqual(shown(s), ['tool:IDE', 'expansion:IDE', 'tool:OpenFile', 'tool:GetSelection']);
    assert.equal(foldNote(toolCard(s, 'OpenFile'), s), undefined);
  });

  it('the setting can change at any time: the same transcript folds and unfolds', () => {
    const folded = play(IDE_RUN);
    const unfolded = reduce(folded, showSteps(true));
    assert.deepEqual(shown(unfolded), ['tool:IDE', 'expansion:IDE', 'tool:OpenFile', 'tool:GetSelection']);
    assert.deepEqual(shown(reduce(unfolded, showSteps(false))), ['tool:OpenFile', 'tool:GetSelection']);
    assert.equal(reduce(folded, showSteps(false)), folded, 'an unchanged setting leaves the state as it is');
  });

  it('folds a skill expansion into the card of a tool it loaded, naming the skill', () => {
    const s = play([
      ev.started(),
      ev.toolStarted('call-skill', 'review', {}, { group: 'Git' }),
      ev.expanded('Git', ['GitDiff', 'GitLog'], 'review'),
      ev.toolEnded('call-skill', 'succeeded', 0),
      ev.toolStarted('call-diff', 'GitDiff', { staged: true }, { group: 'Git' }),
    ]);
    assert.deepEqual(shown(s), ['tool:GitDiff']);
    assert.equal(foldNote(toolCard(s, 'GitDiff'), s), 'Loaded the skill review (Git group): GitDiff, GitLog');
  });

  it('a card in a later run does not take an earlier run\'s expansion', () => {
    const s = play([
      ...IDE_RUN.slice(0, 4),
      ev.finished(),
      ev.started('run-2'),
      record('r9', 'OpenFile', { callId: 'call-late', status: 'succeeded', durationMs: 1 }),
    ]);
    assert.equal(foldNote(toolCard(s, 'OpenFile'), s), undefined);
  });

  it('leaves a backend tool that is not the expanding call in view', () => {
    const s = play([
      ev.started(),
      ev.toolStarted('call-search', 'WebSearch', { q: 'x' }),
      ev.expanded('IDE', ['OpenFile']),
    ]);
    assert.deepEqual(shown(s), ['tool:WebSearch']);
  });

  it('survives a saved transcript and keeps the window\'s setting across a thread switch and New Chat', () => {
    const s = play([showSteps(true), ...IDE_RUN, ev.finished()]);
    const restored = restoreState(JSON.parse(transcriptOf(reduce(s, showSteps(false)))));
    assert.deepEqual(shown(restored), ['tool:OpenFile', 'tool:GetSelection']);
    assert.equal(restoreState({ ...JSON.parse(transcriptOf(s)), showExpansionSteps: undefined }).showExpansionSteps, false);
    const other = reduce(s, { type: 'showThread', threadId: '6f1b8f4e-3c2a-4d6e-9a7b-1c2d3e4f5a6b', transcript: JSON.parse(transcriptOf(reduce(s, showSteps(false)))) });
    assert.equal(other.showExpansionSteps, true);
    assert.equal(reduce(s, { type: 'newChatRequested' }).showExpansionSteps, true);
  });

  it('folds a group whose name is not a function name: "MCP: everything" expands through its function name (MCP__everything_<digest>)', () => {
    for (const container of [toFunctionName('MCP: everything')]) {
      assert.match(container, /^MCP__everything_[0-9a-f]{12}$/);
      const s = play([
        ev.started(),
        ev.toolStarted('call-mcp', container, {}, { group: 'MCP: everything' }),
        ev.expanded('MCP: everything', ['mcp_everything_echo']),
        ev.toolEnded('call-mcp', 'succeeded', 0, [{ type: 'text', text: 'The tools are now available.' }]),
        record('r1', 'mcp_everything_echo', { callId: 'call-echo', arguments: { message: 'hi' }, status: 'succeeded', durationMs: 3 }),
      ]);
      assert.deepEqual(shown(s), ['tool:mcp_everything_echo'], container);
      assert.equal(foldNote(toolCard(s, 'mcp_everything_echo'), s), 'Loaded the MCP: everything group: mcp_everything_echo');
    }
  });

  it('describes a long group briefly', () => {
    assert.equal(describeFold('IDE', ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H']), 'Loaded the IDE group: A, B, C, D, E, F, …');
    assert.equal(describeFold('IDE', []), 'Loaded the IDE group');
  });
});
