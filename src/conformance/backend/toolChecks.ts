/**
 * Tool calls through the backend's model: expanding the kit's collapsed group, then answering the
 * model's ReadFile calls as a binary frame, as inline base64, as text and JSON, and as a failure;
 * and cancelling a run while a call waits. These need a model that reads a file when asked (the
 * reference backend's offline demo model does); with another model they are skipped with a reason.
 */
import type { ClientToolInvokeRequest, ClientToolInvokeResponse, ContentItem, ServerToClient, ToolCallEnded, ToolCallStarted, ToolGroupDefinition, Welcome } from '../../protocol';
import { ErrorCode } from '../../protocol';
import { describeMessage } from '../backendPeer';
import type { Check } from '../check';
import { CheckFailed, skip, verify } from '../check';
import type { BackendContext, ToolThread } from './context';
import { FILES_GROUP, FILES_GROUP_NAME, helloMessage, IMAGE_BYTES, READ_TOOL, uniqueId } from './context';

type Invoke = ClientToolInvokeRequest;
/** The smallest message limit an extension may announce (PROTOCOL.md "Limits each side announces"). */
const SMALL_LIMIT = 65_536;
/** A result larger than SMALL_LIMIT, of words (a run without spaces is no kinder to tokenizers). */
const LARGE_RESULT_CHARS = 100_000;

/** The kit's group with a ReadFile no model's path matches: the backend refuses the call, or the kit does. */
const STRICT_FILES_GROUP: ToolGroupDefinition = {
  ...FILES_GROUP,
  tools: FILES_GROUP.tools.map((t) => ({ ...t, parameters: { type: 'object', properties: { path: { type: 'string', maxLength: 1 } }, required: ['path'] } })),
};
const isInvoke = (m: ServerToClient): m is Invoke => m.type === 'clientToolInvokeRequest';

/** Sends the prompt on the thread and returns the model's ReadFile call, or skips when the model makes none. */
export async function promptForRead(context: BackendContext, thread: ToolThread): Promise<Invoke> {
  const since = thread.peer.mark();
  thread.peer.send({ type: 'userMessage', threadId: thread.threadId, text: context.target.prompt });
  const first = await context.wait(thread.peer, (m) => isInvoke(m) || (m.type === 'runFinished' && m.threadId === thread.threadId), 'a tool call or the end of the run', since);
  if (!isInvoke(first)) {
    const said = thread.peer.messages(since).flatMap((m) => (m.type === 'textDelta' ? [m.text] : [])).join('').slice(0, 200);
    skip(`the backend's model made no tool call for "${context.target.prompt}" (it said: "${said}"); these checks need a model that reads a file when asked, such as the reference backend's offline demo model, or a --prompt your model acts on`);
  }
  verify(first.toolName === READ_TOOL, `the model called ${first.toolName}, not ${READ_TOOL}`);
  verify(first.threadId === undefined || first.threadId === thread.threadId, `the request names thread ${first.threadId}`);
  return first;
}

/** The thread the expansion check left; the checks after it skip when it could not be made. */
function toolThread(context: BackendContext): ToolThread {
  if (context.thread) return context.thread;
  return skip(context.threadSkipped ?? 'the expansion check did not leave a thread to call tools on');
}

/** Answers the pending call (or the next one the prompt brings) and waits for its toolCallEnded and the end of the run. */
async function answer(context: BackendContext, thread: ToolThread, respond: (r: ClientToolInvokeResponse) => void, content: ContentItem[], success = true): Promise<ToolCallEnded> {
  const request = thread.pending ?? (await promptForRead(context, thread));
  thread.pending = undefined;
  const since = thread.peer.mark();
  respond({ type: 'clientToolInvokeResponse', requestId: request.requestId, success, content, ...(success ? {} : { errorCode: ErrorCode.NotFound, errorMessage: 'conformance.png does not exist.' }) });
  const ended = await context.wait(thread.peer, (m): m is ToolCallEnded => m.type === 'toolCallEnded' && m.callId === request.callId, `toolCallEnded for call ${request.callId}`, since);
  const finished = await context.wait(thread.peer, (m) => m.type === 'runFinished' && m.threadId === thread.threadId, 'runFinished', since);
  verify(finished.type === 'runFinished' && finished.reason === 'completed', `the run ended: ${describeMessage(finished)}`);
  return ended;
}

function sameBytes(item: ContentItem | undefined, bytes: Uint8Array): boolean {
  return item?.type === 'binary' && Buffer.from(item.bytes).equals(Buffer.from(bytes));
}

function contentSummary(content: ContentItem[]): string {
  return JSON.stringify(content.map((c) => (c.type === 'binary' ? { type: 'binary', mimeType: c.mimeType, byteLength: c.bytes.byteLength } : c))).slice(0, 300);
}

/** Answers the pending ReadFile with the image, as a binary frame or as inline base64, and checks the model got the same bytes. */
async function binaryRoundTrip(context: BackendContext, how: 'frame' | 'inline'): Promise<string> {
  const thread = toolThread(context);
  const image: ContentItem = how === 'frame' ? { type: 'binary', mimeType: 'image/png', filename: 'conformance.png', bytes: IMAGE_BYTES } : { type: 'binary', mimeType: 'image/png', bytes: IMAGE_BYTES };
  const send = how === 'frame' ? (r: ClientToolInvokeResponse) => thread.peer.send(r) : (r: ClientToolInvokeResponse) => thread.peer.sendInline(r);
  const ended = await answer(context, thread, send, [image]);
  verify(ended.outcome === 'succeeded' && sameBytes(ended.content.find((c) => c.type === 'binary'), IMAGE_BYTES), `toolCallEnded ${ended.outcome}: ${contentSummary(ended.content)}`);
  return `toolCallEnded (succeeded) with the ${IMAGE_BYTES.byteLength} bytes`;
}

export const TOOL_CHECKS: Check<BackendContext>[] = [
  {
    id: 'tools.expansion',
    title: 'The model sees the collapsed group as a container; calling it expands the group',
    expected: `toolCallStarted (executor server) for the container, groupExpanded ${FILES_GROUP_NAME} listing ${READ_TOOL}, the container's toolCallEnded and the thread's toolGroupState, in this order, then a clientToolInvokeRequest for ${READ_TOOL}`,
    async run(context) {
      const { peer, welcome } = await context.session();
      const thread: ToolThread = { peer, welcome, threadId: uniqueId('conformance-thread') };
      const since = peer.mark();
      let request: Invoke;
      try {
        request = await promptForRead(context, thread);
      } catch (e) {
        if (!(e instanceof CheckFailed)) context.threadSkipped = (e as Error).message;
        throw e;
      }
      const before = peer.messages(since).slice(0, peer.messages(since).indexOf(request));
      const container = before.find((m): m is ToolCallStarted => m.type === 'toolCallStarted' && m.executor === 'server');
      verify(container, `no toolCallStarted with executor server came before the request (saw ${before.map((m) => m.type).join(', ')})`);
      const expanded = before.find((m) => m.type === 'groupExpanded');
      verify(expanded?.type === 'groupExpanded' && expanded.group === FILES_GROUP_NAME && expanded.tools.includes(READ_TOOL), `groupExpanded: ${expanded ? JSON.stringify(expanded) : 'none before the request'}`);
      // The order of one model turn (PROTOCOL.md "Tool groups"): the container's started, expanded
      // and ended, then the thread's toolGroupState, all before the next turn's request.
      const ended = before.find((m) => m.type === 'toolCallEnded' && m.callId === container.callId);
      const state = before.find((m) => m.type === 'toolGroupState' && m.threadId === thread.threadId);
      const order = [container, expanded, ended, state].map((m) => (m ? before.indexOf(m) : -1));
      verify(order.every((at, i) => at >= 0 && (i === 0 || at > order[i - 1])), `the expansion came as ${before.map((m) => (m.type === 'toolGroupState' ? `toolGroupState(${m.threadId === thread.threadId ? 'thread' : 'session'})` : m.type)).join(', ')}, not toolCallStarted, groupExpanded, toolCallEnded, toolGroupState of the thread, then the request`);
      context.thread = { ...thread, pending: request };
      return `container ${container.toolName} called: toolCallStarted, groupExpanded, toolCallEnded, toolGroupState, then ${READ_TOOL} requested`;
    },
  },
  {
    id: 'tools.binary-frame',
    title: 'A result sent as a binary frame (attachment) reaches the model intact',
    expected: 'toolCallEnded (succeeded) whose content holds the same bytes, and the run completes',
    run: (context) => binaryRoundTrip(context, 'frame'),
  },
  {
    id: 'tools.inline-base64',
    title: 'A result with inline base64 in a text frame reaches the model intact',
    expected: 'toolCallEnded (succeeded) whose content holds the decoded bytes, and the run completes',
    run: (context) => binaryRoundTrip(context, 'inline'),
  },
  {
    id: 'tools.text-json',
    title: 'A result of text and JSON items reaches the model intact',
    expected: 'toolCallEnded (succeeded) with the same text and JSON items, and the run completes',
    async run(context) {
      const thread = toolThread(context);
      const content: ContentItem[] = [{ type: 'text', text: 'conformance text ✓' }, { type: 'json', value: { answer: 42, nested: [true, null, 'x'] } }];
      const ended = await answer(context, thread, (r) => thread.peer.send(r), content);
      verify(ended.outcome === 'succeeded' && JSON.stringify(ended.content) === JSON.stringify(content), `toolCallEnded ${ended.outcome}: ${contentSummary(ended.content)}`);
      return 'toolCallEnded (succeeded) with the same items';
    },
  },
  {
    id: 'tools.failure',
    title: 'A failed result ends the call as failed and the run carries on',
    expected: 'toolCallEnded with outcome failed, then runFinished (completed)',
    async run(context) {
      const thread = toolThread(context);
      const ended = await answer(context, thread, (r) => thread.peer.send(r), [{ type: 'text', text: 'conformance.png does not exist.' }], false);
      verify(ended.outcome === 'failed', `toolCallEnded ${ended.outcome}`);
      return 'toolCallEnded (failed), run completed';
    },
  },
  {
    id: 'tools.cancel',
    title: 'cancel stops the run and cancels its waiting call',
    expected: 'clientToolCancel for the waiting request, toolCallEnded (cancelled) and runFinished (cancelled)',
    async run(context) {
      const thread = toolThread(context);
      const request = await promptForRead(context, thread);
      const since = thread.peer.mark();
      thread.peer.send({ type: 'cancel', threadId: thread.threadId });
      await context.wait(thread.peer, (m) => m.type === 'clientToolCancel' && m.requestId === request.requestId, `clientToolCancel for ${request.requestId}`, since);
      thread.peer.send({ type: 'clientToolInvokeResponse', requestId: request.requestId, success: false, content: [], errorCode: ErrorCode.Cancelled, errorMessage: 'Cancelled.' });
      const ended = await context.wait(thread.peer, (m): m is ToolCallEnded => m.type === 'toolCallEnded' && m.callId === request.callId, 'toolCallEnded', since);
      const finished = await context.wait(thread.peer, (m) => m.type === 'runFinished' && m.threadId === thread.threadId, 'runFinished', since);
      verify(ended.outcome === 'cancelled', `toolCallEnded ${ended.outcome}`);
      verify(finished.type === 'runFinished' && finished.reason === 'cancelled', describeMessage(finished));
      return 'clientToolCancel, toolCallEnded (cancelled), runFinished (cancelled)';
    },
  },
  {
    id: 'tools.resume-pending',
    title: 'A call waiting when the connection drops is re-sent with the same requestId after the resume, or ended',
    expected: 'after the resume (resumed true): the same clientToolInvokeRequest again (retryWithBackoff, suspend), answered to a completed run; or toolCallEnded and runFinished for it (failFast, fallbackMessage)',
    advisory: true,
    async run(context) {
      const thread = toolThread(context);
      const request = await promptForRead(context, thread);
      await thread.peer.close();
      const peer = await context.connect();
      peer.send(helloMessage({ resumeSession: thread.welcome.sessionId, ...(thread.welcome.resumeSecret ? { resumeSecret: thread.welcome.resumeSecret } : {}) }));
      const welcome = await context.wait(peer, (m): m is Welcome => m.type === 'welcome', 'welcome');
      verify(welcome.resumed, `the session was not resumed: ${describeMessage(welcome)}`);
      context.thread = { ...thread, peer, welcome };
      const next = await context.wait(peer, (m) => (isInvoke(m) && m.requestId === request.requestId) || (m.type === 'runFinished' && m.threadId === thread.threadId), `the re-sent ${request.requestId} or the end of the run`);
      if (!isInvoke(next)) return `the call was ended while disconnected: ${describeMessage(next)}`;
      verify(next.toolName === request.toolName && next.callId === request.callId && JSON.stringify(next.arguments) === JSON.stringify(request.arguments), `the re-sent request differs: ${JSON.stringify(next).slice(0, 200)}`);
      const ended = await answer(context, { ...context.thread, pending: next }, (r) => peer.send(r), [{ type: 'text', text: 'read after the resume' }]);
      verify(ended.outcome === 'succeeded', `toolCallEnded ${ended.outcome}`);
      return `${request.requestId} re-sent unchanged after the resume; answered, the run completed`;
    },
  },
  {
    id: 'tools.refused',
    title: 'A call whose arguments break the tool\'s schema is visible however it is refused',
    expected: `the backend refuses it itself (toolCallStarted executor server, toolCallEnded failed with errorMessage, no request), or sends it (executor client) and reports the kit's ${ErrorCode.InvalidArguments} as toolCallEnded failed; the run ends`,
    async run(context) {
      const { peer } = await context.session({ toolGroups: [STRICT_FILES_GROUP] });
      const threadId = uniqueId('conformance-refused');
      const since = peer.mark();
      peer.send({ type: 'userMessage', threadId, text: context.target.prompt });
      const read = (m: ServerToClient): m is ToolCallStarted => m.type === 'toolCallStarted' && m.toolName === READ_TOOL;
      const first = await context.wait(peer, (m) => read(m) || (m.type === 'runFinished' && m.threadId === threadId), `a toolCallStarted for ${READ_TOOL}, or the end of the run`, since);
      if (!read(first)) return skip(`the backend's model made no ${READ_TOOL} call for "${context.target.prompt}"`);
      const next = await context.wait(peer, (m) => (isInvoke(m) && m.callId === first.callId) || (m.type === 'toolCallEnded' && m.callId === first.callId), `the request or the end of call ${first.callId}`, since);
      let ended: ToolCallEnded;
      let how: string;
      if (isInvoke(next)) {
        verify(first.executor === 'client', `the call was announced with executor ${first.executor} and then sent to the extension`);
        const at = peer.mark();
        peer.send({ type: 'clientToolInvokeResponse', requestId: next.requestId, success: false, content: [{ type: 'text', text: 'path: does not match the schema' }], errorCode: ErrorCode.InvalidArguments, errorMessage: 'path: does not match the schema' });
        ended = await context.wait(peer, (m): m is ToolCallEnded => m.type === 'toolCallEnded' && m.callId === first.callId, `toolCallEnded for ${first.callId}`, at);
        how = 'sent (executor client) and refused by the kit';
      } else {
        ended = next as ToolCallEnded;
        verify(first.executor === 'server', `the backend ended the call without sending it, but announced it with executor ${first.executor} (a call the backend answers itself is executor server, so the extension shows it)`);
        how = `refused by the backend (executor server${ended.errorCode ? `, ${ended.errorCode}` : ''})`;
      }
      verify(ended.outcome === 'failed' && (ended.errorMessage ?? '') !== '', `toolCallEnded ${ended.outcome}${ended.errorMessage ? '' : ' without errorMessage'}`);
      await context.wait(peer, (m) => m.type === 'runFinished' && m.threadId === threadId, 'runFinished', since);
      return `${READ_TOOL} ${how}: toolCallEnded (failed): ${(ended.errorMessage ?? '').slice(0, 120)}`;
    },
  },
  {
    id: 'limits.hello-max-message',
    title: 'Nothing the backend sends is larger than hello.limits.maxMessageBytes, a large result included',
    expected: `with hello.limits.maxMessageBytes ${SMALL_LIMIT}, a ${LARGE_RESULT_CHARS}-character result is taken: toolCallEnded (succeeded), the run completes, and every message is at most ${SMALL_LIMIT} bytes`,
    async run(context) {
      const { peer, welcome } = await context.session({ limits: { maxMessageBytes: SMALL_LIMIT, maxInFlight: 64, replayWindowMs: 600_000 } });
      const thread: ToolThread = { peer, welcome, threadId: uniqueId('conformance-limits') };
      const request = await promptForRead(context, thread);
      const text = 'conformance '.repeat(Math.ceil(LARGE_RESULT_CHARS / 12)).slice(0, LARGE_RESULT_CHARS);
      const ended = await answer(context, { ...thread, pending: request }, (r) => peer.send(r), [{ type: 'text', text }]);
      verify(ended.outcome === 'succeeded', `toolCallEnded ${ended.outcome}`);
      const largest = Math.max(...peer.received.map((r) => r.bytes));
      verify(largest <= SMALL_LIMIT, `a message of ${largest} bytes came (${peer.received.filter((r) => r.bytes > SMALL_LIMIT).map((r) => r.message?.type ?? r.invalid?.code).join(', ')})`);
      return `the largest of ${peer.received.length} messages was ${largest} bytes`;
    },
  },
  {
    id: 'limits.hello-max-json',
    title: "No message's JSON text the backend sends is larger than hello.limits.maxJsonBytes, under a larger maxMessageBytes",
    expected: `with hello.limits.maxJsonBytes ${SMALL_LIMIT} (maxMessageBytes 32 MiB), a ${LARGE_RESULT_CHARS}-character result is taken: toolCallEnded (succeeded), the run completes, and no message's JSON text is over ${SMALL_LIMIT} bytes`,
    async run(context) {
      const { peer, welcome } = await context.session({ limits: { maxMessageBytes: 33_554_432, maxInFlight: 64, replayWindowMs: 600_000, maxJsonBytes: SMALL_LIMIT } });
      const thread: ToolThread = { peer, welcome, threadId: uniqueId('conformance-limits-json') };
      const request = await promptForRead(context, thread);
      const text = 'conformance '.repeat(Math.ceil(LARGE_RESULT_CHARS / 12)).slice(0, LARGE_RESULT_CHARS);
      const ended = await answer(context, { ...thread, pending: request }, (r) => peer.send(r), [{ type: 'text', text }]);
      verify(ended.outcome === 'succeeded', `toolCallEnded ${ended.outcome}`);
      const largest = Math.max(...peer.received.map((r) => r.jsonBytes));
      verify(largest <= SMALL_LIMIT, `a message with ${largest} bytes of JSON came (${peer.received.filter((r) => r.jsonBytes > SMALL_LIMIT).map((r) => r.message?.type ?? r.invalid?.code).join(', ')})`);
      return `the largest JSON of ${peer.received.length} messages was ${largest} bytes`;
    },
  },
];
