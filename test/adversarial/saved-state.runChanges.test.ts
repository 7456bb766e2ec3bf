/**
 * The run change list's saved record (run-changes.json in the extension's storage) as a hostile
 * program on the machine would write it: files outside the workspace, through a symbolic link, or
 * protected, under an innocent label; more runs and more text than the log keeps. What the user's
 * Undo or Open Diff acts on is checked where they act (checkRecordedFile), and a damaged record costs
 * only its bad runs.
 */
import * as assert from 'node:assert/strict';
import { mkdir, symlink } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { CodedError, ErrorCode } from '../../src/protocol';
import { checkRecordedFile, MAX_LOG_CHARS, MAX_RUNS, MAX_TRACKED_CHARS, RunChangeLog } from '../../src/core/runChanges';
import { createTempWorkspace, type TempWorkspace } from '../support/fake-host';

async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
  } catch (e) {
    return e instanceof CodedError ? e.code : String(e);
  }
  return undefined;
}

describe('the run change list from a hostile saved record', () => {
  let ws: TempWorkspace;
  beforeEach(async () => {
    ws = await createTempWorkspace(['ws'], { 'src/notes.md': 'notes\n' });
  });
  afterEach(async () => {
    await ws.dispose();
  });

  it('T-RUNCH-01: a recorded file reached through a symbolic link out of the workspace, or with `..`, is refused: nothing is read or written', async () => {
    const outside = path.join(os.tmpdir(), `client-tools-outside-${process.pid}`);
    await mkdir(outside, { recursive: true });
    const link = path.join(ws.folders[0].path, 'linkToHome');
    await symlink(outside, link);
    assert.equal(await codeOf(checkRecordedFile(path.join(link, 'autostart.desktop'), ws.folders, [])), ErrorCode.PathOutsideWorkspace);
    assert.equal(await codeOf(checkRecordedFile(`${ws.folders[0].path}/../../etc/cron.d/x`, ws.folders, [])), ErrorCode.PathOutsideWorkspace);
    assert.equal(await codeOf(checkRecordedFile('/etc/cron.d/x', ws.folders, [])), ErrorCode.PathOutsideWorkspace);
    assert.equal(await codeOf(checkRecordedFile('src/notes.md', ws.folders, [])), ErrorCode.PathInvalid);
    // A symbolic link inside the workspace to a file inside it: the label would name one file and the write land on another.
    await symlink(path.join(ws.folders[0].path, 'src/notes.md'), path.join(ws.folders[0].path, 'alias.md'));
    assert.equal(await codeOf(checkRecordedFile(path.join(ws.folders[0].path, 'alias.md'), ws.folders, [])), ErrorCode.PathOutsideWorkspace);
    assert.equal(await codeOf(checkRecordedFile(path.join(ws.folders[0].path, 'src/notes.md'), ws.folders, [])), undefined);
    assert.equal(await codeOf(checkRecordedFile(path.join(ws.folders[0].path, 'src/new.md'), ws.folders, [])), undefined);
  });

  it('T-RUNCH-02: a protected file (a git hook, .env, the workspace settings) is not undone from the list, whatever its label', async () => {
    for (const rel of ['.git/hooks/pre-commit', '.env', '.vscode/settings.json']) {
      assert.equal(await codeOf(checkRecordedFile(path.join(ws.folders[0].path, rel), ws.folders, [])), ErrorCode.PathProtected, rel);
    }
    assert.equal(await codeOf(checkRecordedFile(path.join(ws.folders[0].path, 'src/secret.txt'), ws.folders, ['**/secret.txt'])), ErrorCode.PathProtected);
  });

  it('T-RUNCH-03: more runs than kept, or a bad run, cost only those runs; one run cannot hold more text than the log', () => {
    const good = (i: number) => ({ runId: `run-${i}`, threadId: 't', files: [{ file: `/w/${i}`, path: `${i}`, before: 'a', after: 'b' }], untracked: 0 });
    const runs: unknown[] = Array.from({ length: MAX_RUNS + 5 }, (_, i) => good(i));
    runs[MAX_RUNS + 2] = { runId: 'bad', threadId: 't', files: 'not a list', untracked: 0 };
    const log = RunChangeLog.parse({ version: 1, runs });
    assert.deepEqual(log.runsOf('t').map((r) => r.runId), Array.from({ length: MAX_RUNS + 5 }, (_, i) => `run-${i}`).slice(5).filter((id) => id !== `run-${MAX_RUNS + 2}`));
    // Untracked writes of new runs keep the run limit (they used to add runs past it, and the saved log then failed whole).
    const fresh = new RunChangeLog();
    for (let i = 0; i < MAX_RUNS + 3; i++) fresh.untracked({ runId: `u-${i}`, threadId: 't' });
    assert.equal(fresh.runsOf('t').length, MAX_RUNS);
    assert.equal(RunChangeLog.parse(JSON.parse(JSON.stringify(fresh))).runsOf('t').length, MAX_RUNS);
    // One run writing file after file: what would pass the log's budget is counted as untracked, not kept.
    const big = new RunChangeLog();
    const side = 'x'.repeat(MAX_TRACKED_CHARS);
    const files = Math.ceil(MAX_LOG_CHARS / (2 * MAX_TRACKED_CHARS)) + 3;
    for (let i = 0; i < files; i++) big.record({ runId: 'r', threadId: 't' }, `/w/${i}`, `${i}`, side, `${side.slice(1)}y`);
    const [run] = big.runsOf('t');
    const held = run.files.reduce((n, f) => n + (f.before?.length ?? 0) + (f.after?.length ?? 0), 0);
    assert.ok(held <= MAX_LOG_CHARS, `held ${held}`);
    assert.ok(run.untracked >= 3, `untracked ${run.untracked}`);
  });
});
