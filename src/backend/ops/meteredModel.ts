/**
 * Times every model request without touching the agent loop: the model the backend uses is wrapped
 * once, so every caller (the agent, the summariser) is measured the same way.
 */
import type { ChatModel, ModelChunk, ModelRequest } from '../model/chatModel';
import { ModelFailure } from '../model/chatModel';

/** Called once per request: its duration in seconds and, when it failed, the error code. */
export type ModelRequestObserver = (seconds: number, errorCode?: string) => void;

/** `model` with each `stream()` timed from the call until its last chunk, an error, or the caller stopping. */
export function meteredModel(model: ChatModel, observe: ModelRequestObserver): ChatModel {
  return {
    get name() {
      return model.name;
    },
    get offline() {
      return model.offline;
    },
    stream: (request: ModelRequest, signal: AbortSignal) => timed(model.stream(request, signal), signal, observe),
  };
}

async function* timed(chunks: AsyncIterable<ModelChunk>, signal: AbortSignal, observe: ModelRequestObserver): AsyncGenerator<ModelChunk> {
  const started = process.hrtime.bigint();
  let errorCode: string | undefined;
  try {
    yield* chunks;
  } catch (e) {
    // A request the run cancelled did not fail; anything else did, with its code when it has one.
    if (!signal.aborted) errorCode = e instanceof ModelFailure ? e.code : 'MODEL_ERROR';
    throw e;
  } finally {
    // Also when the consumer stops early (a `break` returns the generator): that is no failure.
    observe(Number(process.hrtime.bigint() - started) / 1e9, errorCode);
  }
}
