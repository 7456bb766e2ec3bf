/**
 * A model request that got no answer in time (MODEL_TIMEOUT before any chunk) is sent again, up to
 * `retries` times after a short pause, and each retry is announced first, so the run says what it
 * waits for instead of "Working…". A request that already streamed something is never repeated:
 * its text is on screen and a second answer would follow it. Other failures (auth, 4xx, a broken
 * stream) are not retried here; the SDK already retried 429s, 5xx answers and refused connections.
 */
import { ErrorCode } from '../../protocol';
import { ModelFailure, type ChatModel, type ModelChunk, type ModelRequest } from './chatModel';

export const DEFAULT_MODEL_RETRIES = 2;

export interface ModelRetryNote {
  /** 1 for the first retry. */
  attempt: number;
  /** Retries allowed in all. */
  of: number;
  delayMs: number;
  failure: ModelFailure;
}

/** The pause before retry `attempt` (1-based): 2 s, then 4 s, then 8 s, at most 8 s. */
export function retryDelayMs(attempt: number): number {
  return Math.min(8000, 1000 * 2 ** attempt);
}

export async function* streamWithRetries(
  model: ChatModel,
  request: ModelRequest,
  signal: AbortSignal,
  retries: number,
  announce: (note: ModelRetryNote) => void,
  delayMs: (attempt: number) => number = retryDelayMs,
): AsyncIterable<ModelChunk> {
  for (let attempt = 1; ; attempt++) {
    let answered = false;
    try {
      for await (const chunk of model.stream(request, signal)) {
        if (chunk.type !== 'usage') answered = true;
        yield chunk;
      }
      return;
    } catch (e) {
      if (!(e instanceof ModelFailure) || e.code !== ErrorCode.ModelTimeout || answered || signal.aborted) throw e;
      if (attempt > retries) throw retries > 0 ? new ModelFailure(e.code, `${e.message} Tried ${retries + 1} times.`, e.retryable, e.summary) : e;
      const pause = delayMs(attempt);
      announce({ attempt, of: retries, delayMs: pause, failure: e });
      if (!(await sleep(pause, signal))) return;
    }
  }
}

/** Waits `ms`; false when `signal` aborted first. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const done = (finished: boolean) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(finished);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
