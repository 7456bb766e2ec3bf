import * as assert from 'node:assert/strict';
import { Emitter } from '../../../../src/base/events';
import { DIAGNOSTICS_QUIET_MS, SETTLE_POLL_MS, SETTLE_WINDOW_MS, settledAnswer, settledDiagnostics } from '../../../../src/vscode/host/settle';
import { ManualTimers } from '../../core/consent/permission-fakes';

/** Lets promise callbacks run between clock moves. */
const flush = () => new Promise((r) => setImmediate(r));

describe('settled answers', () => {
  it('an empty answer right after a change is asked again until the server has one', async () => {
    const timers = new ManualTimers();
    const answers = [[], [], ['ref']];
    let asked = 0;
    const result = settledAnswer(async () => answers[asked++] ?? [], (a) => a.length === 0, timers.now(), undefined, timers);
    for (let i = 0; i < 3; i++) {
      await flush();
      timers.advance(SETTLE_POLL_MS);
    }
    assert.deepEqual(await result, ['ref']);
    assert.equal(asked, 3);
  });

  it('the first answer stands when the document did not change lately, or when it is not empty', async () => {
    const timers = new ManualTimers();
    let asked = 0;
    assert.deepEqual(await settledAnswer(async () => (asked++, []), (a) => a.length === 0, undefined, undefined, timers), []);
    assert.deepEqual(await settledAnswer(async () => (asked++, []), (a) => a.length === 0, timers.now() - SETTLE_WINDOW_MS, undefined, timers), []);
    assert.deepEqual(await settledAnswer(async () => (asked++, ['x']), (a) => a.length === 0, timers.now(), undefined, timers), ['x']);
    assert.equal(asked, 3);
  });

  it('gives up with the empty answer when the window closes (bounded)', async () => {
    const timers = new ManualTimers();
    let asked = 0;
    const result = settledAnswer(async () => (asked++, []), (a) => a.length === 0, timers.now(), undefined, timers);
    for (let t = 0; t <= SETTLE_WINDOW_MS; t += SETTLE_POLL_MS) {
      await flush();
      timers.advance(SETTLE_POLL_MS);
    }
    assert.deepEqual(await result, []);
    assert.equal(asked, 1 + SETTLE_WINDOW_MS / SETTLE_POLL_MS, "the first query and one per poll until the window closed");
  });
});

describe('settled diagnostics', () => {
  const doc = (timers: ManualTimers, over: { changedAt?: number; reportedAt?: number; read?: () => Promise<unknown> } = {}) => {
    const reports = new Emitter<void>();
    return { reports, doc: { changedAt: timers.now(), reportedAt: undefined, onReport: reports.event, read: () => new Promise(() => {}), ...over } };
  };

  it('waits for the server\'s report after a change (GetDiagnostics right after OpenFile)', async () => {
    const timers = new ManualTimers();
    const { reports, doc: d } = doc(timers);
    let settled = false;
    void settledDiagnostics(d, undefined, timers).then(() => (settled = true));
    timers.advance(2000);
    await flush();
    assert.equal(settled, false);
    reports.fire();
    await flush();
    assert.equal(settled, true);
  });

  it('a clean file gets no report: once the server answered on the file, a quiet period ends the wait', async () => {
    const timers = new ManualTimers();
    let read = () => {};
    const { doc: d } = doc(timers, { read: () => new Promise<void>((r) => (read = r)) });
    let settled = false;
    void settledDiagnostics(d, undefined, timers).then(() => (settled = true));
    timers.advance(500);
    read();
    await flush();
    timers.advance(DIAGNOSTICS_QUIET_MS - 1);
    await flush();
    assert.equal(settled, false);
    timers.advance(1);
    await flush();
    assert.equal(settled, true);
  });

  it('no wait when diagnostics came after the change or the change is old; and never past the window', async () => {
    const timers = new ManualTimers();
    await settledDiagnostics(doc(timers, { reportedAt: timers.now() }).doc, undefined, timers);
    await settledDiagnostics(doc(timers, { changedAt: timers.now() - SETTLE_WINDOW_MS }).doc, undefined, timers);
    await settledDiagnostics(doc(timers, { changedAt: undefined }).doc, undefined, timers);
    const { doc: d } = doc(timers);
    let settled = false;
    void settledDiagnostics(d, undefined, timers).then(() => (settled = true));
    timers.advance(SETTLE_WINDOW_MS);
    await flush();
    assert.equal(settled, true);
  });
});
