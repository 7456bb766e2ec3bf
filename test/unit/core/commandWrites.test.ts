import * as assert from 'node:assert/strict';
import { writeFile, rm } from 'node:fs/promises';
import * as path from 'node:path';
import { CodedError, ErrorCode } from '../../../src/protocol';
import { CommandWriteCollector, MAX_COMMAND_PATHS, RunSpans } from '../../../src/core/commandWrites';
import type { RecordedWrite } from '../../../src/core/recordingHost';
import { RunChangeLog } from '../../../src/core/runChanges';
import { describeSteps, planRewind } from '../../../src/core/rewindPlan';
import { TERMINAL_GROUP, TERMINAL_TOOLS } from '../../../src/tools/terminal/group';
import { DispatchHarness } from '../../support/dispatch-harness';
import { createTempWorkspace, type TempWorkspace } from '../../support/fake-host';

const RUN = { runId: 'run-1', threadId: 'thread-1' };
const FOLDERS = [{ name: 'ws', path: '/w/ws' }];

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return e instanceof CodedError ? e.code : String(e);
  }
  return undefined;
}

describe('the files a terminal command wrote (CommandWriteCollector)', () => {
  it('keeps files inside the workspace folders only, never a protected file, a folder root or a relative path', () => {
    const c = new CommandWriteCollector(FOLDERS, ['secret/**'], new Map());
    for (const f of ['/w/ws/a.txt', '/w/ws-evil/b.txt', '/etc/passwd', '/w/ws', '/w/ws/.env', '/w/ws/.git/config', '/w/ws/secret/k.txt', 'rel.txt', '/w/ws/sub/../c.txt']) c.note('changed', f);
    assert.deepEqual(c.result().files.map((f) => f.file), ['/w/ws/a.txt', '/w/ws/c.txt']);
  });

  it('lists at most MAX_COMMAND_PATHS files a command and counts the rest', () => {
    const c = new CommandWriteCollector(FOLDERS, [], new Map());
    for (let i = 0; i < MAX_COMMAND_PATHS + 50; i++) c.note('created', `/w/ws/f${i}.txt`);
    c.note('changed', '/w/ws/f0.txt');
    const { files, dropped } = c.result();
    assert.equal(files.length, MAX_COMMAND_PATHS);
    assert.equal(dropped, 50);
  });

  it('counts a path longer than the record takes (a command can make one) without working on it, and lists the rest', () => {
    const c = new CommandWriteCollector(FOLDERS, [], new Map());
    c.note('created', `/w/ws/${'d/'.repeat(2100)}f.txt`);
    c.note('created', `/w/ws/${'a'.repeat(8 * 1024 * 1024)}`);
    c.note('created', '/w/ws/ok.txt');
    assert.deepEqual(c.result(), { files: [{ file: '/w/ws/ok.txt', before: null }], dropped: 2 });
  });

  it('the text before: null when the first event is a create, an open document\'s text, else unknown', () => {
    const c = new CommandWriteCollector(FOLDERS, [], new Map([['/w/ws/open.txt', 'was open\n']]));
    c.note('created', '/w/ws/new.txt');
    c.note('changed', '/w/ws/new.txt');
    c.note('changed', '/w/ws/open.txt');
    c.note('changed', '/w/ws/closed.txt');
    c.note('deleted', '/w/ws/gone.txt');
    c.note('created', '/w/ws/gone.txt');
    assert.deepEqual(c.result().files, [
      { file: '/w/ws/new.txt', before: null },
      { file: '/w/ws/open.txt', before: 'was open\n' },
      { file: '/w/ws/closed.txt', before: undefined },
      { file: '/w/ws/gone.txt', before: undefined },
    ]);
  });
});

describe('a run\'s change list with a command\'s writes (RunChangeLog.recordWrite, planRewind)', () => {
  it('a file with no earlier copy is listed and marked, not diffed, never undone, not dropped when deleted', () => {
    const log = new RunChangeLog();
    log.recordWrite(RUN, { file: '/w/ws/c.txt', before: undefined, after: 'now\n', byCommand: true }, 'c.txt');
    log.recordWrite(RUN, { file: '/w/ws/d.txt', before: undefined, after: null, byCommand: true }, 'd.txt');
    log.recordWrite(RUN, { file: '/w/ws/o.txt', before: 'old\n', after: 'new\n', byCommand: true }, 'o.txt');
    log.recordWrite(RUN, { file: '', before: undefined, after: undefined, byCommand: true, untracked: 7 }, '');
    const [run] = log.runsOf(RUN.threadId);
    assert.deepEqual(run.files.map((f) => log.view(f)).map((v) => [v.path, v.kind, v.hunks.length, v.byCommand, v.noEarlierCopy]), [
      ['c.txt', 'changed', 0, true, true],
      ['d.txt', 'deleted', 0, true, true],
      ['o.txt', 'changed', 1, true, undefined],
    ]);
    assert.equal(run.untracked, 7);
    assert.equal(codeOf(() => log.planUndoFile(RUN, '/w/ws/c.txt', 'now\n')), ErrorCode.InvalidArguments);
    assert.equal(codeOf(() => log.planUndoHunk(RUN, '/w/ws/c.txt', 0, 'now\n')), ErrorCode.InvalidArguments);
    assert.equal(codeOf(() => log.planUndoFile(RUN, '/w/ws/d.txt', null)), ErrorCode.InvalidArguments);
    assert.deepEqual(log.planUndoFile(RUN, '/w/ws/o.txt', 'new\n'), { file: '/w/ws/o.txt', text: 'old\n' });
    log.keepFile(RUN, '/w/ws/c.txt');
    assert.deepEqual(log.runsOf(RUN.threadId)[0].files.map((f) => f.path), ['d.txt', 'o.txt']);
    // A saved record with the marks loads back.
    assert.deepEqual(RunChangeLog.parse(JSON.parse(JSON.stringify(log.toJSON()))).toJSON(), log.toJSON());
  });

  it('an earlier write of the same run keeps the text before, so a command\'s later write of it can be undone', () => {
    const log = new RunChangeLog();
    log.recordWrite(RUN, { file: '/w/ws/a.txt', before: 'v0\n', after: 'v1\n' }, 'a.txt');
    log.recordWrite(RUN, { file: '/w/ws/a.txt', before: undefined, after: 'v2 by the command\n', byCommand: true }, 'a.txt');
    const [file] = log.runsOf(RUN.threadId)[0].files;
    assert.deepEqual([file.before, file.after, file.byCommand, file.noEarlierCopy], ['v0\n', 'v2 by the command\n', true, undefined]);
    assert.deepEqual(log.planUndoFile(RUN, '/w/ws/a.txt', 'v2 by the command\n'), { file: '/w/ws/a.txt', text: 'v0\n' });
  });

  it('Rewind restores what has a text before and names the rest as not restorable', () => {
    const log = new RunChangeLog();
    log.recordWrite(RUN, { file: '/w/ws/a.txt', before: 'v0\n', after: 'v1\n' }, 'a.txt');
    log.recordWrite(RUN, { file: '/w/ws/c.txt', before: undefined, after: 'made by make\n', byCommand: true }, 'c.txt');
    const plan = planRewind(log.runsOf(RUN.threadId), [RUN.runId], new Map([['/w/ws/a.txt', 'v1\n'], ['/w/ws/c.txt', 'made by make\n']]));
    assert.deepEqual(describeSteps(plan.steps), ['Restore a.txt']);
    assert.deepEqual(plan.notRestorable, ['c.txt']);
  });
});

/** A call as a thread's run makes it (the harness's own calls name no thread). */
function callOfThread(h: DispatchHarness, toolName: string, args: Record<string, unknown>) {
  const requestId = `t${Math.random().toString(36).slice(2)}`;
  h.dispatcher.handleInvoke({ type: 'clientToolInvokeRequest', requestId, toolName, callId: `c-${requestId}`, arguments: args, threadId: RUN.threadId }, { kind: 'backend', userRun: true });
  return h.response(requestId);
}

describe('recording a terminal command\'s writes (recordingHost through the dispatcher)', () => {
  let ws: TempWorkspace;
  let h: DispatchHarness;
  let writes: RecordedWrite[];
  beforeEach(async () => {
    writes = [];
    ws = await createTempWorkspace(['ws'], { 'open.txt': 'open before\n', 'closed.txt': 'closed before\n', 'gone.txt': 'bye\n' });
    ws.host.answerPrompts('allow');
    h = new DispatchHarness({ host: ws.host, group: TERMINAL_GROUP, tools: TERMINAL_TOOLS, onFileWritten: (w) => writes.push(w) });
  });
  afterEach(async () => {
    h.dispose();
    await ws.dispose();
  });

  it('RunInTerminal reports the files the watch saw with the text before where it was known, and the text after read from disk', async () => {
    let collector: CommandWriteCollector | undefined;
    ws.host.watchCommandWrites = () => {
      collector = new CommandWriteCollector(ws.folders, [], new Map([[ws.file('open.txt'), 'open before\n']]));
      const watching = collector;
      return { stop: async () => watching.result() };
    };
    // A call of no thread (an MCP client's) has no change list: its command is not watched.
    assert.equal((await h.call('RunInTerminal', { command: 'true' })).success, true);
    assert.equal(collector, undefined);
    ws.host.catalog.commandHandler = async () => {
      // What the shell wrote, and what the editor's watcher reported of it.
      for (const [rel, text] of [['new.txt', 'x\n'], ['open.txt', 'open after\n'], ['closed.txt', 'closed after\n']]) {
        await writeFile(ws.file(rel), text);
        collector?.note(rel === 'new.txt' ? 'created' : 'changed', ws.file(rel));
      }
      await rm(ws.file('gone.txt'));
      collector?.note('deleted', ws.file('gone.txt'));
      collector?.note('changed', path.join(ws.root, 'outside.txt'));
      return { exitCode: 0, output: '', truncated: false, timedOut: false, via: 'terminal' };
    };
    const r = await callOfThread(h, 'RunInTerminal', { command: 'echo x > new.txt' });
    assert.equal(r.success, true, r.errorMessage);
    await until(() => writes.length >= 4);
    assert.deepEqual(writes, [
      { file: ws.file('new.txt'), before: null, after: 'x\n', byCommand: true },
      { file: ws.file('open.txt'), before: 'open before\n', after: 'open after\n', byCommand: true },
      { file: ws.file('closed.txt'), before: undefined, after: 'closed after\n', byCommand: true },
      { file: ws.file('gone.txt'), before: undefined, after: null, byCommand: true },
    ]);
  });

  it("the command's answer does not wait for the watch: its files are reported once the watch stops", async () => {
    let stopped: (w: ReturnType<CommandWriteCollector['result']>) => void = () => undefined;
    ws.host.watchCommandWrites = () => ({ stop: () => new Promise((resolve) => (stopped = resolve)) });
    ws.host.catalog.commandHandler = async () => {
      await writeFile(ws.file('late.txt'), 'late\n');
      return { exitCode: 0, output: '', truncated: false, timedOut: false, via: 'terminal' };
    };
    const r = await callOfThread(h, 'RunInTerminal', { command: 'echo late > late.txt' });
    assert.equal(r.success, true, r.errorMessage);
    assert.deepEqual(writes, []);
    stopped({ files: [{ file: ws.file('late.txt'), before: null }], dropped: 0 });
    await until(() => writes.length >= 1);
    assert.deepEqual(writes, [{ file: ws.file('late.txt'), before: null, after: 'late\n', byCommand: true }]);
  });

  it('a host that cannot watch reports nothing for a command', async () => {
    ws.host.catalog.commandHandler = async () => {
      await writeFile(ws.file('new.txt'), 'x\n');
      return { exitCode: 0, output: '', truncated: false, timedOut: false, via: 'terminal' };
    };
    assert.equal((await callOfThread(h, 'RunInTerminal', { command: 'echo x > new.txt' })).success, true);
    assert.deepEqual(writes, []);
  });
});

describe("a command's late report goes to the run the call was made in (RunSpans)", () => {
  it('finds the run in progress when the call started, after it ended and after a newer run began', () => {
    const spans = new RunSpans();
    spans.started('t', 'r1', 100);
    assert.equal(spans.runAt('t', 150), 'r1');
    spans.ended('t', 'r1', 200);
    spans.started('t', 'r2', 250);
    assert.equal(spans.runAt('t', 150), 'r1', 'the ended run the call was made in');
    assert.equal(spans.runAt('t', 260), 'r2');
    assert.equal(spans.runAt('t', 220), undefined, 'between runs: no run');
    assert.equal(spans.runAt('other', 150), undefined, 'another thread');
  });

  it('remembers a few runs a thread, the oldest forgotten', () => {
    const spans = new RunSpans();
    for (let i = 0; i < 20; i++) {
      spans.started('t', `r${i}`, i * 10);
      spans.ended('t', `r${i}`, i * 10 + 5);
    }
    assert.equal(spans.runAt('t', 192), 'r19');
    assert.equal(spans.runAt('t', 2), undefined);
  });
});

async function until(done: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
