import { strict as assert } from 'node:assert';
import { RunChangeLog } from '../../../src/core/runChanges';
import { describeSteps, planRewind } from '../../../src/core/rewindPlan';

const T = 't';
const log = () => {
  const l = new RunChangeLog();
  // run 1 edits a.txt; run 2 edits a.txt again, creates new.txt and deletes old.txt; run 3 edits b.txt.
  l.record({ threadId: T, runId: 'r1' }, '/ws/a.txt', 'a.txt', 'v0\n', 'v1\n');
  l.record({ threadId: T, runId: 'r2' }, '/ws/a.txt', 'a.txt', 'v1\n', 'v2\n');
  l.record({ threadId: T, runId: 'r2' }, '/ws/new.txt', 'new.txt', null, 'made\n');
  l.record({ threadId: T, runId: 'r2' }, '/ws/old.txt', 'old.txt', 'kept\n', null);
  l.record({ threadId: T, runId: 'r3' }, '/ws/b.txt', 'b.txt', 'b0\n', 'b1\n');
  l.record({ threadId: 'other', runId: 'r9' }, '/ws/a.txt', 'a.txt', 'v2\n', 'x\n');
  return l;
};
const now = (entries: Record<string, string | null>) => new Map(Object.entries(entries));

describe('Rewind to here: the plan from the run change record', () => {
  it('restores each file to its text before the first run dropped, deletes what they created, re-creates what they deleted', () => {
    const l = log();
    const plan = planRewind(l.runsOf(T), ['r2', 'r3'], now({ '/ws/a.txt': 'v2\n', '/ws/new.txt': 'made\n', '/ws/old.txt': null, '/ws/b.txt': 'b1\n' }));
    assert.deepEqual(plan.steps.map((s) => [s.path, s.action, s.text, s.conflict]), [
      ['a.txt', 'restore', 'v1\n', false],
      ['new.txt', 'delete', null, false],
      ['old.txt', 'recreate', 'kept\n', false],
      ['b.txt', 'restore', 'b0\n', false],
    ]);
    assert.deepEqual(describeSteps(plan.steps), ['Restore a.txt', 'Delete new.txt', 'Re-create old.txt', 'Restore b.txt']);
  });

  it('rewinding to the first run takes a file back past every later run; another thread\'s runs are not touched', () => {
    const plan = planRewind(log().runsOf(T), ['r1', 'r2', 'r3'], now({ '/ws/a.txt': 'v2\n', '/ws/new.txt': 'made\n', '/ws/old.txt': null, '/ws/b.txt': 'b1\n' }));
    const a = plan.steps.find((s) => s.path === 'a.txt')!;
    assert.equal(a.text, 'v0\n');
    assert.equal(a.expected, 'v2\n');
  });

  it('a file the user changed since the runs is a conflict; one already as it was before is left out; line endings aside', () => {
    const plan = planRewind(log().runsOf(T), ['r2', 'r3'], now({ '/ws/a.txt': 'v2\nmine\n', '/ws/new.txt': 'made\r\n', '/ws/old.txt': null, '/ws/b.txt': 'b0\n' }));
    assert.deepEqual(plan.steps.map((s) => [s.path, s.conflict]), [['a.txt', true], ['new.txt', false], ['old.txt', false]]);
    assert.deepEqual(describeSteps(plan.steps)[0], 'Restore a.txt (you changed it since: kept unless you overwrite)');
  });

  it('a file the runs left that the user deleted since is a conflict to re-create', () => {
    const plan = planRewind(log().runsOf(T), ['r3'], now({ '/ws/b.txt': null }));
    assert.deepEqual(plan.steps.map((s) => [s.path, s.action, s.conflict]), [['b.txt', 'recreate', true]]);
  });

  it('forgetRuns drops only the named runs of the thread', () => {
    const l = log();
    l.forgetRuns(T, ['r2', 'r3']);
    assert.deepEqual(l.toJSON().runs.map((r) => `${r.threadId}/${r.runId}`), ['t/r1', 'other/r9']);
  });

  it('counts the untracked writes of the runs dropped', () => {
    const l = log();
    l.untracked({ threadId: T, runId: 'r3' });
    assert.equal(planRewind(l.runsOf(T), ['r3'], now({ '/ws/b.txt': 'b1\n' })).untracked, 1);
    assert.equal(planRewind(l.runsOf(T), ['r1'], now({ '/ws/a.txt': 'v2\n' })).untracked, 0);
  });
});
