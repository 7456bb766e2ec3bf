import * as assert from 'node:assert/strict';
import { CodedError, ErrorCode } from '../../../src/protocol';
import type { RecordedWrite } from '../../../src/core/recordingHost';
import { MAX_RUNS, MAX_TRACKED_CHARS, RunChangeLog, RunChangeLogData } from '../../../src/core/runChanges';
import { listedRunChanges } from '../../../src/core/runChangesSaved';
import { HostToWebview } from '../../../src/protocol/webview';
import { EDITOR_GROUP, EDITOR_TOOLS } from '../../../src/tools/editor/group';
import { IDE_GROUP, IDE_TOOLS } from '../../../src/tools/ide/group';
import { DispatchHarness } from '../../support/dispatch-harness';
import { createTempWorkspace, type TempWorkspace } from '../../support/fake-host';

const RUN = { runId: 'run-1', threadId: 'thread-1' };
const BEFORE = 'one\ntwo\nthree\nfour\nfive\nsix\n';
const AFTER = 'ONE\ntwo\nthree\nfour\nfive\nSIX\n';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return e instanceof CodedError ? e.code : String(e);
  }
  return undefined;
}

describe('the changes of a run (RunChangeLog)', () => {
  it('lists a changed file with its hunks, a created and a deleted file; the first write fixes the text before', () => {
    const log = new RunChangeLog();
    log.record(RUN, '/w/a.txt', 'a.txt', BEFORE, 'ONE\ntwo\nthree\nfour\nfive\nsix\n');
    log.record(RUN, '/w/a.txt', 'a.txt', 'ONE\ntwo\nthree\nfour\nfive\nsix\n', AFTER);
    log.record(RUN, '/w/new.txt', 'new.txt', null, 'hello\n');
    log.record(RUN, '/w/old.txt', 'old.txt', 'bye\n', null);
    const [run] = log.runsOf('thread-1');
    assert.deepEqual(run.files.map((f) => log.view(f).kind), ['changed', 'created', 'deleted']);
    const a = log.view(run.files[0]);
    assert.deepEqual(a.hunks.map((h) => [h.removed, h.added]), [['one\n', 'ONE\n'], ['six\n', 'SIX\n']]);
    assert.equal(run.files[0].before, BEFORE);
  });

  it('a write that puts the file back as it was leaves the list', () => {
    const log = new RunChangeLog();
    log.record(RUN, '/w/a.txt', 'a.txt', BEFORE, AFTER);
    log.record(RUN, '/w/a.txt', 'a.txt', AFTER, BEFORE);
    assert.deepEqual(log.runsOf('thread-1'), []);
  });

  it('Undo of a hunk writes the file with that hunk as before, only while the file holds what the run wrote', () => {
    const log = new RunChangeLog();
    log.record(RUN, '/w/a.txt', 'a.txt', BEFORE, AFTER);
    const write = log.planUndoHunk(RUN, '/w/a.txt', 1, AFTER);
    assert.deepEqual(write, { file: '/w/a.txt', text: 'ONE\ntwo\nthree\nfour\nfive\nsix\n' });
    log.written(RUN, write);
    assert.deepEqual(log.view(log.runsOf('thread-1')[0].files[0]).hunks.map((h) => h.added), ['ONE\n'], 'one hunk left');
    assert.equal(codeOf(() => log.planUndoHunk(RUN, '/w/a.txt', 0, 'ONE\ntwo\nthree\nfour\nfive\nsix\nmine\n')), ErrorCode.TargetChanged);
  });

  it('Undo of a file: the text before (a created file: a delete; a deleted file: written again), refused with TARGET_CHANGED when edited since', () => {
    const log = new RunChangeLog();
    log.record(RUN, '/w/a.txt', 'a.txt', BEFORE, AFTER);
    log.record(RUN, '/w/new.txt', 'new.txt', null, 'hello\n');
    log.record(RUN, '/w/old.txt', 'old.txt', 'bye\n', null);
    assert.deepEqual(log.planUndoFile(RUN, '/w/a.txt', AFTER.replace(/\n/g, '\r\n')), { file: '/w/a.txt', text: BEFORE }, 'line endings aside');
    assert.deepEqual(log.planUndoFile(RUN, '/w/new.txt', 'hello\n'), { file: '/w/new.txt', text: null });
    assert.deepEqual(log.planUndoFile(RUN, '/w/old.txt', null), { file: '/w/old.txt', text: 'bye\n' });
    assert.equal(codeOf(() => log.planUndoFile(RUN, '/w/a.txt', `${AFTER}typed\n`)), ErrorCode.TargetChanged);
    assert.equal(codeOf(() => log.planUndoFile(RUN, '/w/a.txt', null)), ErrorCode.TargetChanged);
    assert.equal(codeOf(() => log.planUndoFile(RUN, '/w/old.txt', 'someone made it again\n')), ErrorCode.TargetChanged);
    assert.equal(codeOf(() => log.planUndoFile(RUN, '/w/other.txt', null)), ErrorCode.NotFound);
    assert.equal(codeOf(() => log.planUndoFile({ ...RUN, runId: 'run-2' }, '/w/a.txt', AFTER)), ErrorCode.NotFound);
  });

  it('Keep of a hunk moves it into the text before; Keep of a file and of a run take them off the list', () => {
    const log = new RunChangeLog();
    log.record(RUN, '/w/a.txt', 'a.txt', BEFORE, AFTER);
    log.record(RUN, '/w/b.txt', 'b.txt', 'x\n', 'y\n');
    log.keepHunk(RUN, '/w/a.txt', 0);
    const a = log.runsOf('thread-1')[0].files[0];
    assert.equal(a.before, 'ONE\ntwo\nthree\nfour\nfive\nsix\n');
    assert.deepEqual(log.planUndoFile(RUN, '/w/a.txt', AFTER).text, 'ONE\ntwo\nthree\nfour\nfive\nsix\n', 'Undo now keeps the kept hunk');
    log.keepFile(RUN, '/w/b.txt');
    assert.deepEqual(log.runsOf('thread-1')[0].files.map((f) => f.path), ['a.txt']);
    log.keepRun(RUN);
    assert.deepEqual(log.runsOf('thread-1'), []);
  });

  it('is bounded: the oldest runs go first, a text over the tracked size is counted as untracked, not kept', () => {
    const log = new RunChangeLog();
    for (let i = 0; i < MAX_RUNS + 5; i++) log.record({ runId: `run-${i}`, threadId: 't' }, '/w/a', 'a', 'x', `y${i}`);
    assert.equal(log.runsOf('t').length, MAX_RUNS);
    assert.equal(log.runsOf('t')[0].runId, 'run-5');
    log.record(RUN, '/w/big', 'big', 'x'.repeat(MAX_TRACKED_CHARS + 1), 'y');
    assert.equal(log.runsOf('thread-1')[0].untracked, 1);
    assert.deepEqual(log.runsOf('thread-1')[0].files, []);
  });

  it('counts a file whose path or label is longer than the record and the list take as untracked, so both stay valid (a command can write one)', () => {
    const log = new RunChangeLog();
    const deep = `/w/${'d/'.repeat(2100)}f.txt`;
    log.record(RUN, '/w/a.txt', 'a.txt', BEFORE, AFTER);
    log.record(RUN, deep, deep.slice(3), 'x', 'y');
    log.recordWrite(RUN, { file: deep, before: undefined, after: 'y', byCommand: true }, deep.slice(3));
    assert.equal(log.runsOf('thread-1')[0].untracked, 2);
    assert.deepEqual(log.runsOf('thread-1')[0].files.map((f) => f.path), ['a.txt']);
    assert.ok(RunChangeLogData.safeParse(log.toJSON()).success, 'the record as saved passes its own schema');
    const listed = listedRunChanges(log, (file) => file.slice(3));
    assert.ok(HostToWebview.safeParse({ type: 'runChanges', runs: listed }).success, 'the list passes the view\'s schema');
  });

  it('works a file\'s hunks out again only when its texts changed (the list is sent after every write), never stale', () => {
    const log = new RunChangeLog();
    log.record(RUN, '/w/a.txt', 'a.txt', BEFORE, AFTER);
    const file = () => log.runsOf('thread-1')[0].files[0];
    const first = log.view(file());
    assert.equal(log.view(file()), first, 'the same texts: the same view, not worked out again');
    log.keepHunk(RUN, '/w/a.txt', 0);
    const kept = log.view(file());
    assert.notEqual(kept, first);
    assert.deepEqual(kept.hunks.map((h) => [h.removed, h.added]), [['six\n', 'SIX\n']]);
    log.record(RUN, '/w/a.txt', 'a.txt', AFTER, `${AFTER}seven\n`);
    assert.deepEqual(log.view(file()).hunks.map((h) => [h.removed, h.added]), [['six\n', 'SIX\nseven\n']]);
  });

  it('survives a save and a load (JSON); a damaged or foreign file loads as empty', () => {
    const log = new RunChangeLog();
    log.record(RUN, '/w/a.txt', 'a.txt', BEFORE, AFTER);
    const again = RunChangeLog.parse(JSON.parse(JSON.stringify(log)));
    assert.deepEqual(again.planUndoFile(RUN, '/w/a.txt', AFTER), { file: '/w/a.txt', text: BEFORE });
    assert.deepEqual(RunChangeLog.parse({ version: 1, runs: [{ runId: 'r', threadId: 't', files: [{ file: '', path: 'a', before: 1, after: null }], untracked: 0 }] }).runsOf('t'), []);
    assert.deepEqual(RunChangeLog.parse('not json').runsOf('t'), []);
  });
});

describe('recording the files a call writes (recordingHost through the dispatcher)', () => {
  let ws: TempWorkspace;
  const harnesses: DispatchHarness[] = [];
  let writes: RecordedWrite[];
  beforeEach(async () => {
    writes = [];
    ws = await createTempWorkspace(['ws'], { 'src/a.ts': 'const a = 1;\nconst b = 2;\n', 'gone.txt': 'bye\n', 'dir/x.txt': 'x\n' });
    ws.host.answerPrompts('allow');
  });
  afterEach(async () => {
    for (const h of harnesses.splice(0)) h.dispose();
    await ws.dispose();
  });
  const harness = (group: typeof EDITOR_GROUP, tools: typeof EDITOR_TOOLS) => {
    const h = new DispatchHarness({ host: ws.host, group, tools, onFileWritten: (w) => writes.push(w) });
    harnesses.push(h);
    return h;
  };

  it('ApplyEdit and DeleteFile report the text before and after; a deleted folder is untracked; a read reports nothing', async () => {
    const editor = harness(EDITOR_GROUP, EDITOR_TOOLS);
    const ide = harness(IDE_GROUP, IDE_TOOLS);
    const edited = await editor.call('ApplyEdit', { path: 'src/a.ts', edits: [{ startLine: 1, startColumn: 11, endLine: 1, endColumn: 12, newText: '10' }] });
    assert.equal(edited.success, true, edited.errorMessage);
    assert.equal((await ide.call('DeleteFile', { path: 'gone.txt' })).success, true);
    assert.equal((await ide.call('DeleteFile', { path: 'dir', recursive: true })).success, true);
    assert.equal((await ide.call('ReadFile', { path: 'src/a.ts' })).success, true);
    assert.deepEqual(writes, [
      { file: ws.file('src/a.ts'), before: 'const a = 1;\nconst b = 2;\n', after: 'const a = 10;\nconst b = 2;\n' },
      { file: ws.file('gone.txt'), before: 'bye\n', after: null },
      { file: ws.file('dir'), before: undefined, after: null },
    ]);
  });

  it('a call that fails before writing reports nothing', async () => {
    const editor = harness(EDITOR_GROUP, EDITOR_TOOLS);
    const r = await editor.call('ApplyEdit', { path: 'src/a.ts', edits: [{ startLine: 9, startColumn: 1, endLine: 9, endColumn: 1, newText: 'x' }] });
    assert.equal(r.success, false);
    assert.deepEqual(writes, []);
  });
});
