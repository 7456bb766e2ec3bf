/**
 * The `default:` of every switch over message types. The argument's type is `never` only while
 * every case is handled, so a message type added to src/protocol/schemas.ts without a case fails
 * the typecheck here (TS2345). At run time it is unreachable: messages are parsed before routing.
 */
export function assertNever(value: never, what = 'value'): never {
  const type = (value as { type?: unknown } | null)?.type;
  throw new Error(`Unhandled ${what}${typeof type === 'string' ? ` of type "${type}"` : ''}`);
}

/**
 * The same compile-time check for a receiver that must survive a sender newer than itself: at run
 * time an unhandled value yields `fallback` instead of throwing.
 */
export function assertNeverOr<T>(_value: never, fallback: T): T {
  return fallback;
}
