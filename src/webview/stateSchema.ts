/**
 * The chat view's state as data: the transcript's items, the state the webview saves with
 * `setState` (plain JSON, parsed again on restore), the actions the reducer takes (src/webview/state.ts)
 * and the empty state.
 */
import { z } from 'zod';
import { MAX_PENDING_STEERS, PendingSteer } from './steers';
import { ChatApproval, ChatAttachment, ChatReview, ChatStatus, ChatThreadSummary, type HostToWebview } from '../protocol/webview';
import { EditorContext } from '../protocol/schemas';

/**
 * Transcript items kept; older ones are dropped. Enough for a thread of 500 turns with 200 tool cards
 * (1,200 items) to be reachable from its first turn: what is out of view costs little
 * (src/webview/virtualise.ts), and the saved transcript has its own bound (MAX_TRANSCRIPT_CHARS).
 */
export const MAX_ITEMS = 2_000;
/** Base64 characters of images kept across the transcript; older images lose their bytes first. */
export const MAX_KEPT_IMAGE_CHARS = 3_000_000;

/** Characters kept per result part and for the pretty-printed arguments. */
export const MAX_DETAIL_CHARS = 20_000;

export const CardStatus = z.enum([
  'pending', 'awaiting-permission', 'running', 'succeeded', 'failed', 'denied', 'skipped', 'cancelled',
]);
export type CardStatus = z.infer<typeof CardStatus>;
const TERMINAL: ReadonlySet<CardStatus> = new Set(['succeeded', 'failed', 'denied', 'skipped', 'cancelled']);
export function isTerminal(status: CardStatus): boolean {
  return TERMINAL.has(status);
}

const ResultPart = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('text'), text: z.string() }),
  /** Pretty-printed JSON. */
  z.object({ kind: z.literal('json'), text: z.string() }),
  /** An inline raster image; `data` (base64) is null once dropped to stay within MAX_KEPT_IMAGE_CHARS. */
  z.object({
    kind: z.literal('image'),
    mimeType: z.string(),
    byteLength: z.number(),
    filename: z.string().optional(),
    data: z.string().nullable(),
  }),
  z.object({ kind: z.literal('binary'), mimeType: z.string(), byteLength: z.number(), filename: z.string().optional() }),
]);
export type ResultPart = z.infer<typeof ResultPart>;

const UserItem = z.object({
  kind: z.literal('user'),
  id: z.string(),
  text: z.string(),
  /** The editor text sent with it (Ask About Selection), by its label; kept in the thread's history. */
  attachment: z.string().max(300).optional(),
  /** The run this message started (Rewind to here names it); absent for a steer or before the run started. */
  runId: z.string().max(200).optional(),
});
const AnswerItem = z.object({
  kind: z.literal('answer'),
  id: z.string(),
  runId: z.string(),
  text: z.string(),
  /** True while deltas may still be appended to this answer. */
  streaming: z.boolean(),
  truncated: z.boolean(),
});
const ToolItem = z.object({
  kind: z.literal('tool'),
  id: z.string(),
  runId: z.string(),
  callId: z.string(),
  toolName: z.string(),
  group: z.string().optional(),
  executor: z.enum(['ide', 'backend']),
  /** One line, at most SUMMARY_CHARS characters. */
  argsSummary: z.string(),
  /** The full arguments, pretty-printed (clipped at MAX_DETAIL_CHARS). */
  argsJson: z.string(),
  status: CardStatus,
  /** Progress details, or why the call failed, was denied or was cancelled. */
  details: z.string().optional(),
  durationMs: z.number().optional(),
  result: z.array(ResultPart),
  expanded: z.boolean(),
  /**
   * Set on cards built from the extension's own record of a call it executed (every client tool
   * card but a `notSent` one): only such a card says the call ran in the editor.
   */
  requestId: z.string().optional(),
  /**
   * The extension's id of that call (`ChatCallRecord.recordId`): records, reviews and questions find
   * their card by it, never by the request id, which a new session may use again for another call.
   */
  recordId: z.string().optional(),
  /** Outside any run the user started. */
  background: z.boolean().optional(),
  /** Who asked, when not the backend ("MCP: <client>"). */
  caller: z.string().optional(),
  /** The ACP agent whose own tool call this card shows (named instead of "Backend"). */
  agent: z.string().optional(),
  /** What the call acted on, as the extension resolved it. */
  target: z.string().optional(),
  /** How permission was decided, in words ("Allowed by your earlier choice: …"). */
  permissionNote: z.string().optional(),
  /** The tool the backend's display event named for this call, when it is not the one that ran. */
  announcedAs: z.string().optional(),
  /** Your editor refused the call before running it (from its own record: unknown tool, invalid arguments, …). */
  refused: z.boolean().optional(),
  /**
   * A call of an editor tool the backend announced and ended without ever sending it to the editor
   * (it refused the call itself, or the run ended first): the extension's record says nothing ran.
   */
  notSent: z.boolean().optional(),
  /** An OpenDiff review of this call, as the extension last described it (src/webview/reviewCard.ts). */
  review: ChatReview.optional(),
  /** The backend's card for a group or skill expansion itself (src/webview/expansionFold.ts). */
  expansionStep: z.boolean().optional(),
  /** The expansion folded into this card, in words ("Loaded the IDE group: …"). */
  expansionNote: z.string().optional(),
});
const ExpansionItem = z.object({
  kind: z.literal('expansion'),
  id: z.string(),
  group: z.string(),
  skill: z.string().optional(),
  tools: z.array(z.string()),
  /** The run it happened in; absent in transcripts saved before expansions were folded. */
  runId: z.string().optional(),
  /** A later tool card carries its note. */
  foldedInto: z.boolean().optional(),
});
const ErrorItem = z.object({
  kind: z.literal('error'),
  id: z.string(),
  message: z.string(),
  code: z.string(),
  retryable: z.boolean(),
  /** The model that was connected when it came (stamped at the next status). */
  model: z.string().optional(),
  /** A model's error from before the model was switched: its actions (Retry, Select Model) are gone. */
  stale: z.boolean().optional(),
});
const NoticeItem = z.object({ kind: z.literal('notice'), id: z.string(), text: z.string() });
const TokenCounts = z.object({ inputTokens: z.number(), outputTokens: z.number(), cachedInputTokens: z.number().optional() });
export type TokenCounts = z.infer<typeof TokenCounts>;
/** The tokens a finished run used (its runFinished's usage), shown under its answer. */
const UsageItem = TokenCounts.extend({ kind: z.literal('usage'), id: z.string(), runId: z.string(), thread: TokenCounts });
export type UsageItem = z.infer<typeof UsageItem>;

export const ChatItem = z.discriminatedUnion('kind', [UserItem, AnswerItem, ToolItem, ExpansionItem, ErrorItem, NoticeItem, UsageItem]);
export type ChatItem = z.infer<typeof ChatItem>;
export type ToolItem = z.infer<typeof ToolItem>;
export type AnswerItem = z.infer<typeof AnswerItem>;

export const ChatState = z.object({
  version: z.literal(1),
  items: z.array(ChatItem),
  connection: ChatStatus,
  run: z.object({ runId: z.string(), threadId: z.string(), model: z.string(), stopRequested: z.boolean() }).nullable(),
  /** A permission prompt is open in the editor. */
  awaitingInput: z.boolean(),
  /**
   * The permission prompt shown in the chat (promptStyle `chat`); the window's, not the thread's.
   * Live only: never restored from a saved state (the host sends the open one on `ready`).
   */
  approval: ChatApproval.nullable().default(null),
  /** What Retry re-sends: the text, and the editor context (a selection) sent with it. */
  lastUserText: z.string().nullable(),
  lastUserContext: EditorContext.nullable().default(null),
  nextId: z.number().int().nonnegative(),
  closedRunIds: z.array(z.string()),
  /** The conversation's token totals as its last finished run reported them; null until one did. */
  threadUsage: TokenCounts.nullable().default(null),
  /**
   * The thread this transcript belongs to; null until the host says (`showThread`), and after New
   * Chat cleared the view, so nothing is saved under a thread the view no longer shows.
   */
  threadId: z.string().nullable().default(null),
  /** The history list, as the host last sent it. */
  threads: z.array(ChatThreadSummary).default([]),
  /** When the view last saved this state (its own clock); the host compares it with its copy's. */
  savedAt: z.number().nonnegative().default(0),
  /** Editor text attached to the next message (Ask About Selection), shown as a removable chip. */
  attachment: ChatAttachment.nullable().default(null),
  /** `clientTools.chat.showExpansionSteps`: the window's, as the host last sent it. */
  showExpansionSteps: z.boolean().default(false),
  /** Messages typed while the run works, waiting for its next tool boundary (src/webview/steers.ts). */
  steers: z.array(PendingSteer).max(MAX_PENDING_STEERS).default([]),
  /** The conversation's context use as the backend last said it (`contextUsage`); null until it did. */
  contextUse: z.object({ tokens: z.number().int().nonnegative(), contextWindow: z.number().int().positive(), estimated: z.boolean() }).nullable().default(null),
});
export type ChatState = z.infer<typeof ChatState>;

/** Actions that start in the view itself rather than in a host message. */
export type LocalAction =
  | { type: 'restore'; saved: unknown }
  | { type: 'toggleCard'; id: string; open: boolean }
  | { type: 'stopRequested' }
  | { type: 'newChatRequested' }
  | { type: 'removeAttachment' }
  /** A message typed during the run, sent as a steer; `withdrawn` (Cancel or Edit) drops one, `leftoverSteersSent` (they went as a new message after the run) all. */
  | { type: 'steerQueued'; steerId: string; text: string }
  | { type: 'steerWithdrawn'; steerId: string }
  | { type: 'leftoverSteersSent' };

export type ChatAction = HostToWebview | LocalAction;

export function initialState(): ChatState {
  return {
    version: 1,
    items: [],
    connection: { connection: 'disconnected' },
    run: null,
    awaitingInput: false,
    approval: null,
    lastUserText: null,
    lastUserContext: null,
    nextId: 1,
    closedRunIds: [],
    threadUsage: null,
    threadId: null,
    threads: [],
    savedAt: 0,
    attachment: null,
    showExpansionSteps: false,
    steers: [],
    contextUse: null,
  };
}
