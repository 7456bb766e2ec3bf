/**
 * Clipping text that came from a peer, so that what is kept does not keep the whole of it alive.
 * V8 represents a slice of a long string (and a template or `+` that holds one) as a view of the
 * original: the first 100,000 characters of a 32 MiB `textDelta`, kept in the chat's state, kept
 * all 32 MiB. A JSON round trip makes a string of its own (linear in what is kept).
 */

/** A copy of `text` that shares no memory with the string it was sliced from. */
export function detached(text: string): string {
  return text.length < 16 ? text : (JSON.parse(JSON.stringify(text)) as string);
}

/** `text`, or its first `max` characters (and `ellipsis`) as a string of their own. */
export function clipText(text: string, max: number, ellipsis = ''): string {
  return text.length <= max ? text : detached(text.slice(0, max) + ellipsis);
}
