/**
 * Rewind (PROTOCOL.md "truncateThread"), an optional request: a backend whose `welcome` lists it in
 * `capabilities` answers RUN_BUSY during a run, NOT_FOUND for a run its thread did not start, and
 * `threadTruncated` for one it did, after which that run is gone (a second truncate is NOT_FOUND).
 * A backend that does not list it is skipped, not failed. Needs a model that reads a file when
 * asked, like the steer checks.
 */
import type { RunStarted } from '../../protocol';
import { ErrorCode } from '../../protocol';
import { describeMessage } from '../backendPeer';
import type { Check } from '../check';
import { skip, verify } from '../check';
import type { BackendContext, ToolThread } from './context';
import { uniqueId } from './context';
import { promptForRead } from './toolChecks';

export const TRUNCATE_CHECKS: Check<BackendContext>[] = [
  {
    id: 'thread.truncate',
    title: 'truncateThread (when announced) gets RUN_BUSY during a run, NOT_FOUND for an unknown run, and drops a finished run',
    expected: `error ${ErrorCode.RunBusy} (relatedId the thread) while a call waits; error ${ErrorCode.NotFound} (relatedId the run) for a run the thread did not start; threadTruncated naming the run after it; ${ErrorCode.NotFound} for the same run again`,
    async run(context) {
      const { peer, welcome } = await context.session();
      if (!welcome.capabilities?.includes('truncateThread')) skip('the backend does not list truncateThread in welcome.capabilities (it is optional)');
      const thread: ToolThread = { peer, welcome, threadId: uniqueId('conformance-truncate') };
      await promptForRead(context, thread);
      const started = peer.messages().filter((m): m is RunStarted => m.type === 'runStarted' && m.threadId === thread.threadId).at(-1);
      verify(started, 'no runStarted for the thread came before the tool request');
      const { runId } = started;
      let since = peer.mark();
      peer.send({ type: 'truncateThread', threadId: thread.threadId, runId });
      const busy = await context.wait(peer, (m) => m.type === 'threadTruncated' || (m.type === 'error' && m.relatedId === thread.threadId), `an answer for thread ${thread.threadId}`, since);
      verify(busy.type === 'error' && busy.code === ErrorCode.RunBusy, `truncateThread during a run got ${describeMessage(busy)}`);
      peer.send({ type: 'cancel', threadId: thread.threadId, runId });
      await context.wait(peer, (m) => m.type === 'runFinished' && m.runId === runId, 'runFinished of the cancelled run', since);

      const unknown = uniqueId('run-never-started');
      since = peer.mark();
      peer.send({ type: 'truncateThread', threadId: thread.threadId, runId: unknown });
      const notFound = await context.wait(peer, (m) => m.type === 'threadTruncated' || (m.type === 'error' && (m.relatedId === unknown || m.relatedId === thread.threadId)), `an answer for run ${unknown}`, since);
      verify(notFound.type === 'error' && notFound.code === ErrorCode.NotFound && notFound.relatedId === unknown, `truncateThread for a run the thread did not start got ${describeMessage(notFound)}`);

      since = peer.mark();
      peer.send({ type: 'truncateThread', threadId: thread.threadId, runId });
      const truncated = await context.wait(peer, (m) => m.type === 'threadTruncated' || (m.type === 'error' && (m.relatedId === runId || m.relatedId === thread.threadId)), `threadTruncated for run ${runId}`, since);
      verify(truncated.type === 'threadTruncated' && truncated.runId === runId && truncated.threadId === thread.threadId && truncated.messages >= 1, `truncateThread for the finished run got ${describeMessage(truncated)}`);

      since = peer.mark();
      peer.send({ type: 'truncateThread', threadId: thread.threadId, runId });
      const again = await context.wait(peer, (m) => m.type === 'threadTruncated' || (m.type === 'error' && (m.relatedId === runId || m.relatedId === thread.threadId)), `an answer for run ${runId} again`, since);
      verify(again.type === 'error' && again.code === ErrorCode.NotFound, `truncateThread for the run already dropped got ${describeMessage(again)}`);
      return `RUN_BUSY during the run; NOT_FOUND for an unknown run; threadTruncated (${truncated.messages} messages); NOT_FOUND again`;
    },
  },
];
