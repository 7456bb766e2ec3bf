/**
 * Stable error codes. Codes are part of the protocol: never rename one, only add.
 * docs/PROTOCOL.md has the same table with when each is used; a unit test keeps them in step.
 */
export const ErrorCode = {
  // Framing and decoding
  ParseError: 'PARSE_ERROR',
  UnknownType: 'UNKNOWN_TYPE',
  InvalidMessage: 'INVALID_MESSAGE',
  MessageTooLarge: 'MESSAGE_TOO_LARGE',
  BadBase64: 'BAD_BASE64',
  BadBinaryFrame: 'BAD_BINARY_FRAME',
  // Handshake and session
  ProtocolMismatch: 'PROTOCOL_MISMATCH',
  Unauthorized: 'UNAUTHORIZED',
  Forbidden: 'FORBIDDEN',
  HandshakeTimeout: 'HANDSHAKE_TIMEOUT',
  NotReady: 'NOT_READY',
  SessionUnknown: 'SESSION_UNKNOWN',
  ServerBusy: 'SERVER_BUSY',
  SessionLimit: 'SESSION_LIMIT',
  CredentialsRevoked: 'CREDENTIALS_REVOKED',
  SlowConsumer: 'SLOW_CONSUMER',
  StateUnavailable: 'STATE_UNAVAILABLE',
  // Tool calls
  UnknownTool: 'UNKNOWN_TOOL',
  ToolHidden: 'TOOL_HIDDEN',
  ToolDisabled: 'TOOL_DISABLED',
  InvalidArguments: 'INVALID_ARGUMENTS',
  InvalidSchema: 'INVALID_SCHEMA',
  NameTaken: 'NAME_TAKEN',
  PermissionDenied: 'PERMISSION_DENIED',
  Skipped: 'SKIPPED',
  TooManyInFlight: 'TOO_MANY_IN_FLIGHT',
  DuplicateRequest: 'DUPLICATE_REQUEST',
  UnknownRequest: 'UNKNOWN_REQUEST',
  Cancelled: 'CANCELLED',
  Timeout: 'TIMEOUT',
  ToolFailed: 'TOOL_FAILED',
  ResultTooLarge: 'RESULT_TOO_LARGE',
  Disconnected: 'DISCONNECTED',
  LimitExceeded: 'LIMIT_EXCEEDED',
  PromptRateLimited: 'PROMPT_RATE_LIMITED',
  ChangeTooLarge: 'CHANGE_TOO_LARGE',
  PromptTooLarge: 'PROMPT_TOO_LARGE',
  // Paths and files
  PathOutsideWorkspace: 'PATH_OUTSIDE_WORKSPACE',
  PathInvalid: 'PATH_INVALID',
  PathProtected: 'PATH_PROTECTED',
  TargetChanged: 'TARGET_CHANGED',
  NotFound: 'NOT_FOUND',
  IsDirectory: 'IS_DIRECTORY',
  FileTooLarge: 'FILE_TOO_LARGE',
  NoWorkspace: 'NO_WORKSPACE',
  WorkspaceUntrusted: 'WORKSPACE_UNTRUSTED',
  // Runs and models
  RunBusy: 'RUN_BUSY',
  RunLimit: 'RUN_LIMIT',
  ModelError: 'MODEL_ERROR',
  ModelAuth: 'MODEL_AUTH',
  ModelRateLimited: 'MODEL_RATE_LIMITED',
  ModelTimeout: 'MODEL_TIMEOUT',
  // Agents the chat runs over ACP
  AgentUnavailable: 'AGENT_UNAVAILABLE',
  AgentExited: 'AGENT_EXITED',
  AgentError: 'AGENT_ERROR',
  UnannouncedToolCall: 'UNANNOUNCED_TOOL_CALL',
  Internal: 'INTERNAL',
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** What each code means, in one sentence; rendered into docs/PROTOCOL.md's table. */
export const ERROR_DESCRIPTIONS: Record<ErrorCode, string> = {
  PARSE_ERROR: 'The message is not valid JSON, or the JSON of a binary frame is not valid UTF-8 (a text frame that is not valid UTF-8 closes the connection with 1007 instead).',
  UNKNOWN_TYPE: 'The message has a `type` this protocol version does not define.',
  INVALID_MESSAGE: 'A field is missing or has the wrong type; the message names the field.',
  MESSAGE_TOO_LARGE: 'The message is larger than the receiver\'s `maxMessageBytes`.',
  BAD_BASE64: 'An inline binary `data` field is not canonical base64.',
  BAD_BINARY_FRAME: 'A binary frame\'s header or attachment lengths do not add up.',
  PROTOCOL_MISMATCH: 'The peer speaks another major protocol version.',
  UNAUTHORIZED: 'The token is missing or wrong (HTTP 401 before the upgrade).',
  FORBIDDEN: 'The request carries a browser `Origin` or a non-loopback `Host` (HTTP 403).',
  HANDSHAKE_TIMEOUT: 'No `hello`/`welcome` within the handshake timeout.',
  NOT_READY: 'A message other than `hello` arrived before the handshake finished.',
  SESSION_UNKNOWN: 'The session to resume is unknown, expired, or not proven with its resume secret; a fresh session was started.',
  SERVER_BUSY: 'The backend is at a connection or session limit; try again later (nothing resumable was dropped to make room).',
  SESSION_LIMIT: 'This user already has the most sessions connected or kept that one user may have on this backend; close one (another editor window) and connect again.',
  CREDENTIALS_REVOKED: 'The credentials the connection was opened with no longer hold (a named token removed from the tokens file, a JWT past its expiry); the session was ended and the connection closed with 4011.',
  SLOW_CONSUMER: 'The peer stopped reading and its unsent output passed the cap; the connection is closed.',
  STATE_UNAVAILABLE: 'Shared state (Redis) behind the backend replicas could not be reached or answered wrongly; nothing was half-done, try again.',
  UNKNOWN_TOOL: 'No registered tool has this name (look-alike names are not matched).',
  TOOL_HIDDEN: 'The tool exists but is hidden from the model right now.',
  TOOL_DISABLED: 'The tool is switched off (for example in an untrusted workspace).',
  INVALID_ARGUMENTS: 'The arguments do not match the tool\'s JSON Schema; the message names the field.',
  INVALID_SCHEMA: 'A tool definition\'s parameter schema is not a valid JSON Schema object.',
  NAME_TAKEN: 'A tool, skill or group would get a function name (or a tool an identity) that another one has; it was refused, never renamed.',
  PERMISSION_DENIED: 'The user denied the call (decline strategy `reject`).',
  SKIPPED: 'The user skipped the call (decline strategy `skip`); not an error for the run.',
  TOO_MANY_IN_FLIGHT: 'The receiver already runs its maximum number of calls; retry later.',
  DUPLICATE_REQUEST: 'The request id is being executed already; the call is not run twice.',
  UNKNOWN_REQUEST: 'A response or progress names a request id that is not pending.',
  CANCELLED: 'The call was cancelled before it finished.',
  TIMEOUT: 'The call did not finish within its timeout.',
  TOOL_FAILED: 'The tool ran and threw; the message says why.',
  RESULT_TOO_LARGE: 'The tool\'s result is larger than `maxResultBytes`.',
  DISCONNECTED: 'The peer went away while the call was in flight.',
  LIMIT_EXCEEDED: 'A size, depth or count limit was passed (schema size, `$ref` expansion, tools or groups per session); the message names it.',
  PROMPT_RATE_LIMITED: 'Too many permission prompts in a short time, or the user denied this backend for a while; nothing was shown or run.',
  CHANGE_TOO_LARGE: 'The change is too large to show the user in full before consent, so it was refused.',
  PROMPT_TOO_LARGE: 'The text the user would consent to does not fit its prompt in full as shown (invisible characters spelled out), so the call was refused without asking.',
  PATH_OUTSIDE_WORKSPACE: 'The path resolves outside every workspace folder (`..`, absolute, or via a symlink).',
  PATH_INVALID: 'The path is empty, has a NUL byte, a non-`file` scheme or a UNC prefix.',
  PATH_PROTECTED: 'The path holds secrets or configuration that can run code; the user must confirm.',
  TARGET_CHANGED: 'The file or a folder on its path changed (replaced, linked, edited) between consent and the I/O; nothing was done.',
  NOT_FOUND: 'The file or folder does not exist.',
  IS_DIRECTORY: 'A folder was given where a file was expected (or `recursive` was not set).',
  FILE_TOO_LARGE: 'The file is larger than the read limit.',
  NO_WORKSPACE: 'No workspace folder is open.',
  WORKSPACE_UNTRUSTED: 'The workspace is in restricted mode; the tool is off.',
  RUN_BUSY: 'The thread already has a run in progress.',
  RUN_LIMIT: 'The session already has its maximum of runs in progress or of threads kept; wait for a run to end (or reset a thread) and send again.',
  MODEL_ERROR: 'The model endpoint failed or sent a malformed stream.',
  MODEL_AUTH: 'The model endpoint refused the API key (HTTP 401/403).',
  MODEL_RATE_LIMITED: 'The model endpoint kept answering 429 after retries.',
  MODEL_TIMEOUT: 'The model endpoint sent nothing for the idle limit, or did not finish within the time limit; the request was stopped (retryable).',
  AGENT_UNAVAILABLE: 'An agent the chat runs over ACP could not be started (its command is missing or failed) or failed its `initialize`.',
  AGENT_EXITED: 'The agent process ended (or closed its stream) while a turn or a request was in progress.',
  AGENT_ERROR: 'The agent answered a request with an error; the message quotes it.',
  UNANNOUNCED_TOOL_CALL: 'The agent asked permission for a tool call it never announced and that describes nothing to show; refused without a prompt.',
  INTERNAL: 'A bug on the sending side; the message has details.',
};

/** An error with a stable code, thrown inside either side and turned into wire errors or results. */
export class CodedError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly relatedId?: string,
  ) {
    super(message);
    this.name = 'CodedError';
  }
}

export function isCodedError(e: unknown): e is CodedError {
  return e instanceof CodedError;
}
