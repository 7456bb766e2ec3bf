/** Protocol identifier sent in `hello` and `welcome`; the number after the slash is the major version. */
export const PROTOCOL = 'client-tools/1';

/** HTTP header that carries the connection token during the WebSocket upgrade. */
export const TOKEN_HEADER = 'x-client-tools-token';

/** WebSocket subprotocol both sides use. */
export const SUBPROTOCOL = 'client-tools.v1';

/** Defaults both sides start from; each is also a setting or an option. */
export const DEFAULT_LIMITS = {
  /** Largest single WebSocket message either side accepts, in bytes. */
  maxMessageBytes: 32 * 1024 * 1024,
  /** Client tool calls that may run at once on one connection. */
  maxInFlight: 64,
  /** Backend's invoke timeout while the client is neither waiting for the user nor reporting progress. */
  invokeTimeoutMs: 30_000,
  /** Largest binary content item a tool may return, in bytes. */
  maxResultBytes: 16 * 1024 * 1024,
  /** How long an answered request id is remembered so a replay gets the stored answer. */
  replayWindowMs: 10 * 60_000,
  /** Heartbeat interval; a peer that misses two is considered dead. */
  heartbeatMs: 10_000,
} as const;

/** The smallest `maxMessageBytes` a peer may announce in `hello.limits`: every handshake message fits in it. */
export const MIN_PEER_MESSAGE_BYTES = 65_536;

/** Tool and function names the OpenAI-compatible APIs accept. */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** Most items one message's `content` may hold. */
export const MAX_CONTENT_ITEMS = 1000;
