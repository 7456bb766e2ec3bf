/**
 * 3. Agent turn overhead, with the real `openai` SDK against the fake chat-completions endpoint
 *    (test/support/fake-openai.ts) and the real ClientCore as the editor. Per turn, two legs:
 *    - model → client: from the moment the fake endpoint has written the last chunk of a streamed
 *      tool call (the SSE stream with finish_reason and [DONE] is handed to the socket) to the
 *      moment the client tool starts running (SDK parsing, the agent loop, the invoker, ws, the
 *      client's decoding and dispatching);
 *    - client → model: from the moment the tool returns its result to the moment the next model
 *      request leaves: the SDK hands it to fetch (dispatcher, ws, backend decoding, the agent loop,
 *      the SDK building the request). Also reported: until it has arrived at the fake endpoint,
 *      which adds Node's HTTP client (undici) and the endpoint reading and parsing the body.
 *    Every timestamp is taken in this one process, with performance.now().
 */
import { defineTool, type ToolResult } from '../src/core';
import { startFakeOpenAI } from '../test/support/fake-openai';
import { GROUP, startStack } from './lib/stack';
import { median, percentile } from './lib/stats';

export interface AgentTurnResult {
  turns: number;
  modelToClient: { medianUs: number; p99Us: number };
  clientToModel: { medianUs: number; p99Us: number };
  /** Tool result → the next request has arrived at the endpoint (adds fetch and the endpoint's parsing). */
  clientToEndpoint: { medianUs: number; p99Us: number };
  /** Whole run (user message → runFinished: two model calls and one tool call). */
  runMedianUs: number;
}

export async function benchAgentTurn(options: { quick: boolean }): Promise<AgentTurnResult> {
  const fake = await startFakeOpenAI();
  let toolStarted = 0;
  let toolReturned = 0;
  const tool = defineTool({
    name: 'Probe',
    group: GROUP,
    description: 'Answers at once; the benchmark notes when it ran.',
    parameters: { type: 'object', properties: {}, additionalProperties: false },
    requiresPermission: false,
    declineStrategy: 'reject',
    availableWhenUntrusted: true,
    run: async (): Promise<ToolResult> => {
      toolStarted = performance.now();
      const result: ToolResult = { content: [{ type: 'text', text: 'ok' }] };
      toolReturned = performance.now();
      return result;
    },
  });
  let requestLeft = 0;
  const timedFetch: typeof fetch = (input, init) => {
    requestLeft = performance.now();
    return fetch(input, init);
  };
  const stack = await startStack([tool], { backend: { model: { baseURL: fake.baseURL, model: 'gpt-bench', apiKey: 'sk-bench', maxRetries: 0, fetch: timedFetch } } });
  const modelToClient: number[] = [];
  const clientToModel: number[] = [];
  const clientToEndpoint: number[] = [];
  const runs: number[] = [];
  const finished = new Map<string, () => void>();
  stack.core.onRunEvent((e) => {
    if (e.type === 'runFinished') finished.get(e.threadId)?.();
    if (e.type === 'runError') throw new Error(`run failed: ${e.code} ${e.message}`);
  });
  try {
    const warmup = 20;
    const turns = options.quick ? 60 : 200;
    for (let i = 0; i < warmup + turns; i++) {
      let streamWritten = 0;
      let nextRequest = 0;
      fake.enqueue(
        () => {
          // The endpoint writes the whole stream synchronously after this returns; nextTick runs once it has.
          process.nextTick(() => (streamWritten = performance.now()));
          return { toolCalls: [{ name: 'Probe', arguments: {}, id: `call_${i}` }] };
        },
        () => {
          nextRequest = performance.now();
          return { text: 'done' };
        },
      );
      const threadId = `thread-${i}`;
      const done = new Promise<void>((resolve) => finished.set(threadId, resolve));
      const t0 = performance.now();
      stack.core.sendUserMessage(threadId, 'call the probe');
      await done;
      finished.delete(threadId);
      if (i < warmup) continue;
      if (!streamWritten || !toolStarted || !nextRequest || requestLeft < toolReturned) throw new Error(`turn ${i} missed a timestamp`);
      modelToClient.push((toolStarted - streamWritten) * 1000);
      clientToModel.push((requestLeft - toolReturned) * 1000);
      clientToEndpoint.push((nextRequest - toolReturned) * 1000);
      runs.push((performance.now() - t0) * 1000);
    }
    return {
      turns,
      modelToClient: { medianUs: median(modelToClient), p99Us: percentile(modelToClient, 99) },
      clientToModel: { medianUs: median(clientToModel), p99Us: percentile(clientToModel, 99) },
      clientToEndpoint: { medianUs: median(clientToEndpoint), p99Us: percentile(clientToEndpoint, 99) },
      runMedianUs: median(runs),
    };
  } finally {
    await stack.close();
    await fake.close();
  }
}
