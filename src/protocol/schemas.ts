/**
 * The wire protocol's single source of truth: one zod schema per message.
 * Types are inferred from these schemas; schema/*.json is generated from them (scripts/generate-schema.ts).
 *
 * Binary content has two shapes. On the wire (`wire` schemas) an item carries either inline base64
 * `data` or an `attachment` index into the bytes that follow the JSON in a binary frame. After
 * decoding (`app` schemas) every binary item carries `bytes: Uint8Array`. The message schemas are
 * built once per shape from the same factory so they cannot drift apart.
 */
import { z } from 'zod';
import { MAX_CONTENT_ITEMS, MIN_PEER_MESSAGE_BYTES, PROTOCOL, TOOL_NAME_PATTERN } from './constants';

const id = z.string().min(1).max(200);
/** A session's resume secret: base64url, at least 128 bits. */
const resumeSecret = z.string().min(22).max(200).regex(/^[A-Za-z0-9_-]+$/, 'must be base64url');
const toolName = z.string().regex(TOOL_NAME_PATTERN, 'must match ^[A-Za-z0-9_-]{1,64}$');
const groupName = z.string().min(1).max(64).regex(/^[^\u0000-\u001f]+$/, 'must not contain control characters');
const shortText = z.string().max(10_000);
const longText = z.string().max(200_000);

/** A JSON Schema object describing a tool's parameters (validated for real at registration). */
export const JsonSchemaObject = z.record(z.string(), z.unknown()).describe('A JSON Schema (draft 2020-12 subset) for an object');

export const DeclineStrategy = z.enum(['reject', 'skip']).describe('What a denied permission prompt answers: an error result, or a result saying the user skipped the call');

export const ToolDefinition = z.object({
  name: toolName,
  description: shortText,
  parameters: JsonSchemaObject,
  requiresPermission: z.boolean().optional(),
  declineStrategy: DeclineStrategy.optional(),
  /** Calls to a sequential tool never overlap with other calls of the same batch. */
  sequential: z.boolean().optional(),
  /** Hidden tools are registered but not shown to the model until an augmentation shows them. */
  hidden: z.boolean().optional(),
});

export const SkillDefinition = z.object({
  name: toolName,
  description: shortText,
  functionResult: longText.optional(),
  systemPrompt: longText.optional(),
  /** Names of tools (in this group) the skill makes visible when activated. */
  tools: z.array(toolName).max(256),
});

export const ToolGroupDefinition = z.object({
  name: groupName,
  description: shortText,
  tools: z.array(ToolDefinition).max(512),
  skills: z.array(SkillDefinition).max(128).optional(),
  /** One-time text appended to the expansion result. */
  functionResult: longText.optional(),
  /** Joins the system prompt on every turn while the group is expanded. */
  systemPrompt: longText.optional(),
  /** Defaults to true: the model first sees one container function. */
  startCollapsed: z.boolean().optional(),
});

export const ContextItem = z.object({
  name: z.string().min(1).max(200),
  text: longText,
});

export const Augmentation = z.object({
  injectGroups: z.array(ToolGroupDefinition).max(64).optional(),
  removeGroups: z.array(groupName).max(64).optional(),
  expandGroups: z.array(groupName).max(64).optional(),
  collapseGroups: z.array(groupName).max(64).optional(),
  hideTools: z.array(toolName).max(512).optional(),
  showTools: z.array(toolName).max(512).optional(),
  addContext: z.array(ContextItem).max(64).optional(),
});

export const TextContent = z.object({ type: z.literal('text'), text: z.string() });
export const JsonContent = z.object({ type: z.literal('json'), value: z.unknown() });
const mimeType = z.string().min(1).max(200).regex(/^[\w.+-]+\/[\w.+-]+$/, 'must be a MIME type like image/png');
const binaryBase = {
  type: z.literal('binary'),
  mimeType,
  filename: z.string().max(1000).optional(),
};
/** On the wire: inline base64 `data`, or `attachment` = index of the bytes in the binary frame. */
export const WireBinaryContent = z
  .object({
    ...binaryBase,
    byteLength: z.number().int().nonnegative(),
    data: z.string().optional(),
    attachment: z.number().int().nonnegative().optional(),
  })
  .refine((v) => (v.data === undefined) !== (v.attachment === undefined), {
    message: 'exactly one of data or attachment',
  });
/** After decoding: the bytes themselves. */
export const BinaryContent = z.object({ ...binaryBase, bytes: z.instanceof(Uint8Array) });

export const EditorContext = z.object({
  file: z.string().max(4096).optional(),
  language: z.string().max(100).optional(),
  selection: z
    .object({
      startLine: z.number().int().nonnegative(),
      startCharacter: z.number().int().nonnegative(),
      endLine: z.number().int().nonnegative(),
      endCharacter: z.number().int().nonnegative(),
    })
    .optional(),
  selectedText: z.string().max(100_000).optional(),
});

export const ProgressStatus = z.enum(['awaiting-permission', 'running', 'progress']);
export const Executor = z.enum(['client', 'server']);
export const ToolCallOutcome = z.enum(['succeeded', 'failed', 'denied', 'skipped', 'cancelled', 'timedOut']);
export const FinishReason = z.enum(['completed', 'cancelled', 'error', 'maxTurns']);

const tokenCount = z.number().int().nonnegative();
/** Tokens as the model endpoint reported them; `cachedInputTokens` (part of `inputTokens`) only when it reports them. */
export const TokenCounts = z.object({ inputTokens: tokenCount, outputTokens: tokenCount, cachedInputTokens: tokenCount.optional() });
/** A run's tokens, summed over its model requests, and its thread's running totals including this run. */
export const RunUsage = TokenCounts.extend({ thread: TokenCounts });

export const GroupState = z.object({
  name: groupName,
  description: z.string(),
  expanded: z.boolean(),
  /** The container function name the model sees while the group is collapsed. */
  containerName: z.string(),
  tools: z.array(z.object({ name: toolName, visible: z.boolean(), requiresPermission: z.boolean() })).max(512),
  skills: z.array(z.object({ name: toolName, active: z.boolean() })).max(128),
});

const threadRef = { threadId: id, runId: id };

/**
 * Limits the extension announces in `hello`, which the backend must respect (the extension refuses
 * what passes them). Absent (an older extension): the protocol's defaults.
 */
export const HelloLimits = z
  .object({
    maxMessageBytes: z.number().int().min(MIN_PEER_MESSAGE_BYTES).describe('Largest WebSocket message the extension accepts, attachments included. The backend never sends a larger one.'),
    maxInFlight: z.number().int().positive().describe('Most client tool calls the extension runs at once; it refuses more with TOO_MANY_IN_FLIGHT. The backend keeps at most this many requests pending.'),
    replayWindowMs: z.number().int().positive().describe('How long the extension remembers an answered requestId. The backend re-sends a request only within this long of sending it.'),
    maxJsonBytes: z
      .number()
      .int()
      .min(MIN_PEER_MESSAGE_BYTES)
      .optional()
      .describe("Largest JSON text of one message the extension accepts: a text frame, or a binary frame's JSON part (attachments not counted). The backend never sends a larger one. Absent: maxMessageBytes."),
  })
  .describe('Limits the backend must respect; absent: maxMessageBytes 33554432, maxInFlight 64, replayWindowMs 600000; maxJsonBytes absent: maxMessageBytes.');

function buildMessages<C extends z.ZodType>(contentItem: C) {
  const content = z.array(contentItem).max(MAX_CONTENT_ITEMS);

  // ── extension → backend ─────────────────────────────────────────────
  const Hello = z.object({
    type: z.literal('hello'),
    protocol: z.literal(PROTOCOL),
    client: z.object({
      name: z.string().max(200),
      version: z.string().max(100),
      ide: z.string().max(200),
      pid: z.number().int().optional(),
    }),
    workspace: z.object({
      folders: z.array(z.object({ name: z.string().max(500), uri: z.string().max(4096) })).max(100),
      trusted: z.boolean(),
    }),
    toolGroups: z.array(ToolGroupDefinition).max(128),
    preExpanded: z.array(groupName).max(128).optional(),
    reset: z.boolean().optional(),
    resumeSession: id.optional(),
    /** Proves ownership of `resumeSession`: the `resumeSecret` of that session's `welcome`. */
    resumeSecret: resumeSecret.optional(),
    limits: HelloLimits.optional(),
  });
  const ClientToolInvokeResponse = z.object({
    type: z.literal('clientToolInvokeResponse'),
    requestId: id,
    success: z.boolean(),
    content,
    errorMessage: shortText.optional(),
    errorCode: z.string().max(64).optional(),
    augmentation: Augmentation.optional(),
  });
  const ClientToolProgress = z.object({
    type: z.literal('clientToolProgress'),
    requestId: id,
    status: ProgressStatus,
    details: shortText.optional(),
  });
  const UserMessage = z.object({
    type: z.literal('userMessage'),
    threadId: id,
    text: z.string().min(1).max(100_000),
    context: EditorContext.optional(),
  });
  const Cancel = z.object({
    type: z.literal('cancel'),
    threadId: id.optional(),
    runId: id.optional(),
  });
  const ResetThread = z.object({ type: z.literal('resetThread'), threadId: id });
  /** A message for the run in progress, added to its thread at the next tool boundary; the same `steerId` again replaces its text while it waits. */
  const Steer = z.object({ type: z.literal('steer'), ...threadRef, steerId: id, text: z.string().min(1).max(100_000) });
  /** Compact the thread's history now, as a run of its own (Compact now). */
  const CompactThread = z.object({ type: z.literal('compactThread'), threadId: id });
  /** Rewind: drops the user message that started run `runId` and everything after it from the thread's history (optional: a backend that announces `truncateThread` in `welcome.capabilities`). */
  const TruncateThread = z.object({ type: z.literal('truncateThread'), ...threadRef });
  /** Takes back a steer that has not been delivered. */
  const WithdrawSteer = z.object({ type: z.literal('withdrawSteer'), ...threadRef, steerId: id });
  const UpdateToolGroups = z.object({
    type: z.literal('updateToolGroups'),
    augmentation: Augmentation,
  });

  // ── backend → extension ─────────────────────────────────────────────
  const Welcome = z.object({
    type: z.literal('welcome'),
    protocol: z.literal(PROTOCOL),
    sessionId: id,
    /** What a `hello` must present (with `resumeSession`) to resume this session; a bearer secret, never logged. */
    resumeSecret: resumeSecret.optional(),
    resumed: z.boolean(),
    server: z.object({
      name: z.string().max(200),
      version: z.string().max(100),
      model: z.object({ name: z.string().max(200), offline: z.boolean() }),
    }),
    limits: z.object({
      maxMessageBytes: z.number().int().positive(),
      maxInFlight: z.number().int().positive(),
      invokeTimeoutMs: z.number().int().positive(),
    }),
    capabilities: z.array(z.string().max(64)).max(64).optional().describe('Optional requests this backend answers, by message type (`truncateThread`); absent: none. Unknown names are ignored.'),
  });
  const ClientToolInvokeRequest = z.object({
    type: z.literal('clientToolInvokeRequest'),
    requestId: id,
    toolName,
    callId: id,
    arguments: z.record(z.string(), z.unknown()),
    description: shortText.optional(),
    threadId: id.optional(),
    timeoutMs: z.number().int().positive().optional(),
  });
  const ClientToolCancel = z.object({
    type: z.literal('clientToolCancel'),
    requestId: id,
    reason: shortText.optional(),
  });
  const RunStarted = z.object({ type: z.literal('runStarted'), ...threadRef, model: z.string().max(200) });
  const TextDelta = z.object({ type: z.literal('textDelta'), ...threadRef, text: z.string() });
  const ToolCallStarted = z.object({
    type: z.literal('toolCallStarted'),
    ...threadRef,
    callId: id,
    toolName: z.string().max(200),
    arguments: z.record(z.string(), z.unknown()),
    executor: Executor,
    group: z.string().max(64).optional(),
  });
  const ToolCallUpdated = z.object({
    type: z.literal('toolCallUpdated'),
    ...threadRef,
    callId: id,
    status: ProgressStatus,
    details: shortText.optional(),
  });
  const ToolCallEnded = z.object({
    type: z.literal('toolCallEnded'),
    ...threadRef,
    callId: id,
    outcome: ToolCallOutcome,
    content,
    errorMessage: shortText.optional(),
    errorCode: z.string().max(64).optional().describe('The error code of a call that did not succeed: the extension\'s errorCode (TOOL_FAILED when its answer had none), or the backend\'s own for a call it ended itself.'),
    durationMs: z.number().nonnegative(),
  });
  const GroupExpanded = z.object({
    type: z.literal('groupExpanded'),
    ...threadRef,
    group: groupName,
    skill: toolName.optional(),
    tools: z.array(toolName).max(512),
  });
  const RunFinished = z.object({ type: z.literal('runFinished'), ...threadRef, reason: FinishReason, usage: RunUsage.optional() });
  /** Where a steer is: waiting for a tool boundary, added to the thread, taken back, or handed back because the run ended first. */
  const SteerUpdated = z.object({ type: z.literal('steerUpdated'), ...threadRef, steerId: id, state: z.enum(['queued', 'delivered', 'withdrawn', 'returned']) });
  /** Older turns were summarised or elided (or an oversized turn shrunk) so the request fits the model's context window. */
  const ContextCompacted = z.object({
    type: z.literal('contextCompacted'),
    ...threadRef,
    mode: z.enum(['summarized', 'elided']),
    messages: z.number().int().nonnegative(),
    tokensBefore: z.number().int().nonnegative(),
    tokensAfter: z.number().int().nonnegative(),
    contextWindow: z.number().int().positive(),
    summary: shortText.optional().describe('With mode summarized: the summary that replaced the compacted messages, as the model reads it (cut to 10,000 characters here).'),
  });
  /** The thread's context use against the model's window, before a model request (and after a compaction). */
  const ContextUsage = z.object({
    type: z.literal('contextUsage'),
    ...threadRef,
    tokens: z.number().int().nonnegative(),
    contextWindow: z.number().int().positive(),
    estimated: z.boolean(),
  });
  const RunError = z.object({
    type: z.literal('runError'),
    ...threadRef,
    code: z.string().max(64),
    message: shortText,
    retryable: z.boolean(),
  });
  /** A model request got no answer in time and is sent again after `delayMs`: the run says what it waits for. */
  const ModelRetry = z.object({
    type: z.literal('modelRetry'),
    ...threadRef,
    attempt: z.number().int().positive(),
    of: z.number().int().positive(),
    delayMs: z.number().int().nonnegative(),
    code: z.string().max(64),
    message: shortText,
  });
  /** The answer to `truncateThread`: the thread's history now ends before run `runId`'s user message. */
  const ThreadTruncated = z.object({ type: z.literal('threadTruncated'), ...threadRef, messages: z.number().int().nonnegative().describe('Messages dropped from the history') });
  const ToolGroupStateMessage = z.object({
    type: z.literal('toolGroupState'),
    threadId: id.optional(),
    collapsing: z.boolean(),
    groups: z.array(GroupState).max(256),
    context: z.array(ContextItem).max(256).optional(),
  });
  const ErrorMessage = z.object({
    type: z.literal('error'),
    code: z.string().max(64),
    message: shortText,
    relatedId: z.string().max(200).optional(),
    group: groupName.optional().describe('A registration error (hello, updateToolGroups, injectGroups): the tool group at fault, by name.'),
    tool: toolName.optional().describe('A registration error about one tool or skill of `group`: its name.'),
  });

  // Each direction's messages by name: the one place a message joins the protocol. The unions, the
  // type lists and the aliases are derived from these records, and every switch over message types
  // ends in assertNever, so a message added here fails the typecheck wherever it is not handled.
  const clientToServer = { Hello, ClientToolInvokeResponse, ClientToolProgress, UserMessage, Cancel, ResetThread, UpdateToolGroups, Steer, WithdrawSteer, CompactThread, TruncateThread };
  /** The backend → extension messages that narrate a run; the chat view renders them. */
  const runEvents = { RunStarted, TextDelta, ToolCallStarted, ToolCallUpdated, ToolCallEnded, GroupExpanded, RunFinished, RunError, ContextCompacted, SteerUpdated, ContextUsage, ModelRetry };
  const serverToClient = {
    Welcome, ClientToolInvokeRequest, ClientToolCancel, ...runEvents, ToolGroupState: ToolGroupStateMessage, Error: ErrorMessage, ThreadTruncated,
  };
  return {
    ...clientToServer, ...serverToClient,
    ClientToServer: unionOf(clientToServer), ServerToClient: unionOf(serverToClient), RunEvent: unionOf(runEvents),
    byDirection: { clientToServer, serverToClient, runEvents },
  };
}

type MessageSchema = z.ZodObject<{ type: z.ZodLiteral<string> }>;

/** A record of message schemas as one union discriminated by `type`, in the record's order. */
export function unionOf<R extends Record<string, MessageSchema>>(byName: R) {
  return z.discriminatedUnion('type', Object.values(byName) as [R[keyof R], ...R[keyof R][]]);
}

/** The `type` of every message in a record of message schemas, in the record's order. */
function typesOf<R extends Record<string, MessageSchema>>(byName: R): readonly z.output<R[keyof R]>['type'][] {
  return Object.values(byName).map((schema) => schema.shape.type.value);
}

export const ContentItem = z.discriminatedUnion('type', [TextContent, JsonContent, BinaryContent]);
export const WireContentItem = z.union([TextContent, JsonContent, WireBinaryContent]);

/** Decoded messages: binary content carries `bytes`. Use these in code. */
export const Messages = buildMessages(ContentItem);
/** Wire messages: binary content carries `data` or `attachment`. Used for the generated JSON Schema. */
export const WireMessages = buildMessages(WireContentItem);

/** Direction of each message type, for docs and for routing. */
export const CLIENT_TO_SERVER_TYPES = typesOf(Messages.byDirection.clientToServer);
export const SERVER_TO_CLIENT_TYPES = typesOf(Messages.byDirection.serverToClient);
/** The server → client messages that narrate a run (`RunEvent`): what the chat view and the backend's events carry. */
export const RUN_EVENT_TYPES = typesOf(Messages.byDirection.runEvents);
