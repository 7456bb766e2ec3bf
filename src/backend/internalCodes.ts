/**
 * Codes the backend's parts use among themselves that never reach the wire: a conversation store's
 * and the shared state's refusals (a run that meets one reports INTERNAL or STATE_UNAVAILABLE) and
 * the metrics label of a shared-state failure that has no code. Every other code the backend uses
 * is the protocol's `ErrorCode`; test/unit/backend/errorCodes.test.ts fails on a code in neither.
 */
export const InternalCode = {
  /** A data-folder file or folder that is a link, not ours, open to others, or not a regular file. */
  StoreUnsafe: 'STORE_UNSAFE',
  /** A thread's log does not read as one. */
  StoreCorrupt: 'STORE_CORRUPT',
  /** A record or a thread over the store's cap. */
  StoreTooLarge: 'STORE_TOO_LARGE',
  /** The store was closed. */
  StoreClosed: 'STORE_CLOSED',
  /** An append under a lease another replica superseded. */
  StoreFenced: 'STORE_FENCED',
  /** Metrics only: a shared-state operation failed with an error that carries no code. */
  StateError: 'STATE_ERROR',
} as const;

export type InternalCode = (typeof InternalCode)[keyof typeof InternalCode];
