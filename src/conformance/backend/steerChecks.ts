/**
 * Steering (PROTOCOL.md "steer"): a message sent while a run waits on a tool call is queued, added
 * to the thread at the run's next tool boundary (after the call's result, before the run goes on),
 * and said so with `steerUpdated`; a steer for a run not in progress gets NOT_RUNNING. And Compact
 * now (`compactThread`): RUN_BUSY during a run, a run of its own without an answer otherwise. These
 * need a model that reads a file when asked, like the tool checks; with another model they are skipped.
 */
import type { RunStarted, ServerToClient, SteerUpdated, ToolCallEnded } from '../../protocol';
import { ErrorCode } from '../../protocol';
import { describeMessage } from '../backendPeer';
import type { Check } from '../check';
import { verify } from '../check';
import type { BackendContext, ToolThread } from './context';
import { errorCoded, uniqueId } from './context';
import { promptForRead } from './toolChecks';

const STEER_TEXT = 'Conformance steer: thank you, nothing more is needed.';

export const STEER_CHECKS: Check<BackendContext>[] = [
  {
    id: 'steer.tool-boundary',
    title: 'A steer sent while a call waits is delivered at the next tool boundary; one for a run not in progress gets NOT_RUNNING',
    expected: `steerUpdated queued, then after the call's toolCallEnded steerUpdated delivered (before runFinished); after the run, a steer naming it gets error ${ErrorCode.NotRunning} with relatedId the steer id`,
    async run(context) {
      const { peer, welcome } = await context.session();
      const thread: ToolThread = { peer, welcome, threadId: uniqueId('conformance-steer') };
      const request = await promptForRead(context, thread);
      const started = peer.messages().filter((m): m is RunStarted => m.type === 'runStarted' && m.threadId === thread.threadId).at(-1);
      verify(started, 'no runStarted for the thread came before the tool request');
      const steerId = uniqueId('steer');
      const since = peer.mark();
      const steerOf = (state: SteerUpdated['state']) => (m: ServerToClient): m is SteerUpdated => m.type === 'steerUpdated' && m.steerId === steerId && m.state === state;
      peer.send({ type: 'steer', threadId: thread.threadId, runId: started.runId, steerId, text: STEER_TEXT });
      await context.wait(peer, steerOf('queued'), `steerUpdated queued for ${steerId}`, since);
      peer.send({ type: 'clientToolInvokeResponse', requestId: request.requestId, success: true, content: [{ type: 'text', text: 'conformance file contents' }] });
      await context.wait(peer, steerOf('delivered'), `steerUpdated delivered for ${steerId}`, since);
      const seen = peer.messages(since);
      const ended = seen.findIndex((m): m is ToolCallEnded => m.type === 'toolCallEnded' && m.callId === request.callId);
      const delivered = seen.findIndex(steerOf('delivered'));
      const finishedAt = seen.findIndex((m) => m.type === 'runFinished' && m.runId === started.runId);
      verify(ended >= 0 && ended < delivered && (finishedAt < 0 || delivered < finishedAt), `the steer's messages came as ${seen.map((m) => (m.type === 'steerUpdated' ? `steerUpdated(${m.state})` : m.type)).join(', ')}`);
      // The model may go on calling tools: the kit stops the run rather than answer them.
      peer.send({ type: 'cancel', threadId: thread.threadId, runId: started.runId });
      await context.wait(peer, (m) => m.type === 'runFinished' && m.runId === started.runId, 'runFinished', since);

      const late = uniqueId('steer');
      const at = peer.mark();
      peer.send({ type: 'steer', threadId: thread.threadId, runId: started.runId, steerId: late, text: STEER_TEXT });
      const error = await context.wait(peer, (m) => errorCoded(ErrorCode.NotRunning, late)(m) || (m.type === 'steerUpdated' && m.steerId === late), `error ${ErrorCode.NotRunning} for ${late}`, at);
      verify(error.type === 'error', `a steer for a finished run got ${describeMessage(error)}`);
      return `queued, delivered after the call's toolCallEnded; a steer for the finished run: ${ErrorCode.NotRunning}`;
    },
  },
  {
    id: 'context.compact-now',
    title: 'compactThread during a run gets RUN_BUSY; between runs it is a run of its own without an answer',
    expected: `error ${ErrorCode.RunBusy} (relatedId the thread) while a call waits; after the run, runStarted and runFinished (completed) with no textDelta between, and contextUsage, if sent, within the window`,
    async run(context) {
      const { peer, welcome } = await context.session();
      const thread: ToolThread = { peer, welcome, threadId: uniqueId('conformance-compact') };
      await promptForRead(context, thread);
      let since = peer.mark();
      peer.send({ type: 'compactThread', threadId: thread.threadId });
      const busy = await context.wait(peer, (m) => m.type === 'error' && m.relatedId === thread.threadId, `an error for thread ${thread.threadId}`, since);
      verify(busy.type === 'error' && busy.code === ErrorCode.RunBusy, `compactThread during a run got ${describeMessage(busy)}`);
      peer.send({ type: 'cancel', threadId: thread.threadId });
      await context.wait(peer, (m) => m.type === 'runFinished' && m.threadId === thread.threadId, 'runFinished of the cancelled run', since);

      since = peer.mark();
      peer.send({ type: 'compactThread', threadId: thread.threadId });
      const started = await context.wait(peer, (m): m is RunStarted => m.type === 'runStarted' && m.threadId === thread.threadId, 'runStarted of the compaction', since);
      const finished = await context.wait(peer, (m) => m.type === 'runFinished' && m.runId === started.runId, 'runFinished of the compaction', since);
      verify(finished.type === 'runFinished' && finished.reason === 'completed', describeMessage(finished));
      const events = peer.messages(since).filter((m) => 'runId' in m && m.runId === started.runId);
      verify(!events.some((m) => m.type === 'textDelta' || m.type === 'clientToolInvokeRequest'), `the compaction's run: ${events.map((m) => m.type).join(', ')}`);
      const usage = events.find((m) => m.type === 'contextUsage');
      verify(usage === undefined || (usage.type === 'contextUsage' && usage.tokens <= usage.contextWindow), `contextUsage ${usage ? JSON.stringify(usage) : ''}`);
      return `RUN_BUSY during the run; then ${events.map((m) => m.type).join(', ')}`;
    },
  },
];
