import * as assert from 'node:assert/strict';
import { UserRuns } from '../../../../src/core/consent/userRuns';
import type { RunEvent } from '../../../../src/protocol';

const started = (threadId: string, runId: string): RunEvent => ({ type: 'runStarted', threadId, runId, model: 'm' });
const finished = (threadId: string, runId: string): RunEvent => ({ type: 'runFinished', threadId, runId, reason: 'completed' });

describe('user runs', () => {
  it('a thread is the user\'s only from the run its message started until that run ends', () => {
    const runs = new UserRuns();
    assert.equal(runs.isUserRun('t'), false);
    runs.userMessageSent('t');
    assert.equal(runs.isUserRun('t'), false, 'not before the run started');
    runs.onRunEvent(started('t', 'r1'));
    assert.equal(runs.isUserRun('t'), true);
    assert.equal(runs.isUserRun('other'), false);
    assert.equal(runs.isUserRun(undefined), false, 'a call naming no thread is never the user\'s');
    runs.onRunEvent(finished('t', 'r1'));
    assert.equal(runs.isUserRun('t'), false);
  });

  it('a run the backend starts without a message of the user\'s does not count, and one message lets one run start', () => {
    const runs = new UserRuns();
    runs.onRunEvent(started('t', 'fake'));
    assert.equal(runs.isUserRun('t'), false);
    runs.userMessageSent('t');
    runs.onRunEvent(started('t', 'r1'));
    runs.onRunEvent(finished('t', 'r1'));
    runs.onRunEvent(started('t', 'r2'));
    assert.equal(runs.isUserRun('t'), false, 'the second run was not asked for');
  });

  it('a run error ends the run; New Chat and a new session forget everything', () => {
    const runs = new UserRuns();
    runs.userMessageSent('t');
    runs.onRunEvent(started('t', 'r1'));
    runs.onRunEvent({ type: 'runError', threadId: 't', runId: 'r1', code: 'X', message: 'x', retryable: false });
    assert.equal(runs.isUserRun('t'), false);
    runs.userMessageSent('t');
    runs.onRunEvent(started('t', 'r2'));
    runs.forgetThread('t');
    assert.equal(runs.isUserRun('t'), false);
    runs.userMessageSent('u');
    runs.clear();
    runs.onRunEvent(started('u', 'r3'));
    assert.equal(runs.isUserRun('u'), false);
  });

  it('stays bounded: the oldest of thousands of threads are forgotten (their calls count as background)', () => {
    const runs = new UserRuns();
    for (let i = 0; i < 5000; i++) {
      runs.userMessageSent(`t${i}`);
      runs.onRunEvent(started(`t${i}`, `r${i}`));
    }
    assert.equal(runs.isUserRun('t4999'), true);
    assert.equal(runs.isUserRun('t0'), false);
  });
});
