/**
 * The operations side of the shared state: every failed operation counted (the
 * `client_tools_state_errors_total` metric, through the backend's `stateError` event), and the
 * readiness probe that asks it one cheap question.
 */
import type { SharedState } from '../state/sharedState';
import { SharedStateError } from '../state/sharedState';
import { InternalCode } from '../internalCodes';

/** `state` with each method's rejection reported to `onError(code, method)` before it reaches the caller. */
export function observedState(state: SharedState, onError: (code: string, operation: string) => void): SharedState {
  return new Proxy(state, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || typeof property !== 'string' || property === 'close') return value;
      return (...args: unknown[]) => {
        const result: unknown = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (!(result instanceof Promise)) return result;
        return result.catch((e: unknown) => {
          onError(e instanceof SharedStateError ? e.code : InternalCode.StateError, property);
          throw e;
        });
      };
    },
  });
}

/** Rejects when the shared state cannot answer a read (Redis down, or its answer too late). */
export async function reachable(state: SharedState): Promise<void> {
  await state.getSession('readiness-probe');
}
