/**
 * Messages between the chat webview and its host (ChatViewProvider), one zod schema each.
 * Both sides parse what they receive: the host parses webview → host messages, the webview parses
 * host → webview messages. It imports only the wire protocol beside it (no `vscode`, no DOM types,
 * no extension code), so the webview bundles it without reaching into the extension.
 *
 * Run events cross `postMessage` as JSON, so the protocol's binary `bytes: Uint8Array` becomes a
 * base64 `data` string here, and `data` is left out for content the view never displays (binaries
 * that are not small raster images). Long strings in arguments and results are clipped by
 * `toChatRunEvent` (src/vscode/chat/chatBridge.ts) before they are posted: the view shows a summary, not a file dump.
 */
import { z } from 'zod';
import { ErrorCode } from './errors';
import { EditorContext, JsonContent, Messages, TextContent, unionOf } from './schemas';

/** Raster image types the view shows inline via a `data:` URL. SVG is deliberately absent. */
export const INLINE_IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
/** Larger images are posted without their bytes and shown as "N bytes of image/…". */
export const MAX_INLINE_IMAGE_BYTES = 2 * 1024 * 1024;
/** Longest string kept in posted arguments and results. */
export const MAX_POSTED_STRING = 20_000;
export const MAX_USER_TEXT = 100_000;
/** Characters the chat keeps per answer; the rest of a runaway answer is dropped (and never posted). */
export const MAX_ANSWER_CHARS = 100_000;
export const MAX_COPY_TEXT = 1_000_000;

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const runId = z.string().min(1).max(200);

export const ChatBinaryContent = z.object({
  type: z.literal('binary'),
  mimeType: z.string().min(1).max(200),
  filename: z.string().max(1000).optional(),
  byteLength: z.number().int().nonnegative(),
  /** Base64 bytes; present only for an inline image type within MAX_INLINE_IMAGE_BYTES. */
  data: z.string().max(Math.ceil(MAX_INLINE_IMAGE_BYTES / 3) * 4).regex(BASE64, 'must be base64').optional(),
});
export const ChatContentItem = z.discriminatedUnion('type', [TextContent, JsonContent, ChatBinaryContent]);

export const ChatToolCallEnded = Messages.ToolCallEnded.extend({ content: z.array(ChatContentItem).max(1000) });
/** `agent`: the ACP agent whose own tool this is (the card names it instead of "Backend"). */
export const ChatToolCallStarted = Messages.ToolCallStarted.extend({ agent: z.string().min(1).max(64).optional() });

/** A protocol run event as the webview receives it: every run event, with JSON-safe content. */
export const ChatRunEvent = unionOf({ ...Messages.byDirection.runEvents, ToolCallStarted: ChatToolCallStarted, ToolCallEnded: ChatToolCallEnded });

/** Characters of an edited argument the view may send (a tool's own schema may allow fewer). */
export const MAX_EDITED_VALUE = 10_000;

/**
 * The extension's own record of a call it executed (src/core/callRecord.ts), as the webview
 * receives it. A client tool's card is built from these alone: the backend's display events for a
 * client call never reach the view (src/vscode/chat/cardStream.ts folds in what they may add).
 */
export const ChatCallRecord = z.object({
  /**
   * Minted by the extension for this call alone (src/core/callRecord.ts): its card is found by it,
   * never by the backend's request id, which a new session may use again for another call.
   */
  recordId: z.string().min(1).max(100),
  /** The backend's request; absent only on a `notSent` record (no request ever came). */
  requestId: z.string().min(1).max(200).optional(),
  callId: z.string().min(1).max(200),
  threadId: z.string().max(200).optional(),
  toolName: z.string().min(1).max(200),
  groupName: z.string().max(200),
  arguments: z.record(z.string(), z.unknown()),
  target: z.string().max(1000).optional(),
  background: z.boolean(),
  /** Who asked, when not the backend: "MCP: <client>" (plain text, see src/core/callRecord.ts). */
  caller: z.string().max(100).optional(),
  /** `skipped` only on a `notSent` record (the backend's outcome). */
  status: z.enum(['pending', 'awaiting-permission', 'running', 'succeeded', 'failed', 'denied', 'cancelled', 'skipped']),
  durationMs: z.number().nonnegative().optional(),
  permission: z.object({
    decision: z.enum(['allowed', 'denied']),
    via: z.string().max(64),
    grantLabel: z.string().max(1000).optional(),
  }).optional(),
  errorCode: z.string().max(64).optional(),
  errorMessage: z.string().max(10_000).optional(),
  content: z.array(ChatContentItem).max(1000).optional(),
  /** Refused before anything ran (src/core/callRecord.ts). */
  refused: z.literal(true).optional(),
  /** The user edited the call before allowing it: the argument, what the agent proposed, what ran (src/core/callRecord.ts). */
  edited: z.object({ argument: z.string().max(64), proposed: z.string().max(MAX_EDITED_VALUE + 100), ran: z.string().max(MAX_EDITED_VALUE + 100) }).optional(),
  /** The tool the backend's display event named for this call, when it is not the one that ran (src/vscode/chat/cardStream.ts). */
  announcedAs: z.string().min(1).max(200).optional(),
  /**
   * A client call the backend announced and ended without success that never reached the editor
   * (src/vscode/chat/cardStream.ts): nothing ran; status, code and reason are the backend's.
   */
  notSent: z.literal(true).optional(),
});

export const ConnectionState = z.enum(['connecting', 'connected', 'reconnecting', 'disconnected']);

/** What the status line shows. `offline` marks the backend's offline demo model. */
export const ChatStatus = z.object({
  connection: ConnectionState,
  model: z.string().max(200).optional(),
  offline: z.boolean().optional(),
  /** A short reason, e.g. why the connection dropped. */
  detail: z.string().max(1000).optional(),
  /** Why the model endpoint failed its connection test (the backend is connected, its model is not usable). */
  modelUnreachable: z.string().max(1000).optional(),
  /** An agent's conversation: how full its context is and what it cost (`Context 12% · 0.03 USD`). */
  usage: z.string().max(200).optional(),
});

const threadId = z.string().uuid();
/** Most threads the history list shows (the extension keeps at most this many). */
export const MAX_LISTED_THREADS = 500;
export const MAX_THREAD_TITLE = 80;
/** Characters of a saved transcript the host accepts (JSON text). */
export const MAX_TRANSCRIPT_CHARS = 4_000_000;

/** One row of the chat's history list. Dates are milliseconds since the epoch. */
export const ChatThreadSummary = z.object({
  id: threadId,
  title: z.string().min(1).max(MAX_THREAD_TITLE),
  createdAt: z.number().int().nonnegative(),
  updatedAt: z.number().int().nonnegative(),
});

// ── host → webview ────────────────────────────────────────────────────
export const HostRunEvent = z.object({ type: z.literal('runEvent'), event: ChatRunEvent });
/** A call the extension executed changed (pending, awaiting permission, running, ended). */
export const HostCallRecord = z.object({ type: z.literal('callRecord'), record: ChatCallRecord });
export const HostStatus = z.object({ type: z.literal('status'), status: ChatStatus });
/** The user's message as it was sent to the backend (typed in the view or composed by a command). */
export const HostUserMessage = z.object({
  type: z.literal('userMessage'),
  text: z.string().min(1).max(MAX_USER_TEXT),
  /** What editor text was sent with it (Ask About Selection), as its chip read: `src/a.ts:3-7`. */
  attachment: z.string().min(1).max(300).optional(),
  /** The editor context sent with it, for Retry to send again. */
  context: EditorContext.optional(),
});
/** A permission prompt is open (or closed again) in the editor; the composer waits meanwhile. */
export const HostAwaitingInput = z.object({ type: z.literal('awaitingInput'), open: z.boolean() });
/** A failure outside a run (not connected, send failed); `retryable` offers Retry. */
export const HostError = z.object({
  type: z.literal('error'),
  message: z.string().min(1).max(10_000),
  code: z.string().min(1).max(64),
  retryable: z.boolean(),
});
/** Characters of a Deny's reason the view may send (the extension keeps fewer for the model). */
export const MAX_APPROVAL_REASON = 1000;
/** The buttons an approval offers beyond Allow and Deny (src/core/host.ts `PermissionChoice`). */
export const ApprovalChoiceAnswer = z.enum(['allowSession', 'allowFolder', 'denyAll', 'disconnect', 'edit']);
/** The argument an approval lets the user edit (RunInTerminal's command, a single-target tool's path), with the agent's value. */
export const ApprovalEditable = z.object({ argument: z.string().min(1).max(64), value: z.string().max(MAX_EDITED_VALUE) });
/**
 * A permission prompt shown in the chat (`clientTools.permissions.promptStyle: chat`): the texts
 * the permission gate built and measured for the chat (src/core/consent/consentText.ts), shown whole as
 * plain text. Never restored from the view's saved state: the host sends the open one on `ready`.
 */
export const ChatApproval = z.object({
  /** Minted by the extension for this prompt alone (never the backend's request id); an answer names it. */
  promptId: z.string().min(1).max(100),
  /** SHA-256 (hex) of `approvalDigestInput` of this prompt: an answer carries the digest of the text its card shows. */
  digest: z.string().regex(/^[0-9a-f]{64}$/),
  requestId: z.string().min(1).max(200),
  toolName: z.string().min(1).max(200),
  groupName: z.string().max(200),
  /** The one line naming the exact target, e.g. "Delete hello.txt (12 B)?". */
  message: z.string().min(1).max(2000),
  /** Everything else the user consents to (the whole change, the exact command). */
  detail: z.string().max(25_000),
  choices: z.array(z.object({ answer: ApprovalChoiceAnswer, label: z.string().min(1).max(1000) })).max(8),
  /** With an `edit` choice: the field the card opens, prefilled with the agent's value. */
  editable: ApprovalEditable.optional(),
});
/**
 * What a prompt's digest is taken of: the texts a card shows, in order, as JSON. The extension
 * hashes the prompt it opens; the card hashes what it put on screen, and an answer whose digest
 * differs from the open prompt's is refused.
 */
export function approvalDigestInput(p: Pick<ChatApproval, 'toolName' | 'groupName' | 'message' | 'detail' | 'choices'>): string {
  return JSON.stringify([p.toolName, p.groupName, p.message, p.detail, ...p.choices.flatMap((c) => [c.answer, c.label])]);
}

/** The permission prompt the chat shows now, or null when none is open (sent again on every `ready`). */
export const HostApproval = z.object({ type: z.literal('approval'), prompt: ChatApproval.nullable() });
/** Clear the transcript (New Chat). */
export const HostReset = z.object({ type: z.literal('reset') });
/**
 * Sent after every `ready`, once the queued messages are flushed: the run the host knows to be in
 * progress. A view restored from saved state closes any other run it still shows as running.
 */
export const HostSync = z.object({
  type: z.literal('sync'),
  activeRunId: runId.nullable(),
  /**
   * The record ids of the calls the extension is still executing. A card from the record of any
   * other call that the view still shows as open (it was saved before the window reloaded, or it
   * missed the call's end while hidden) is closed as cancelled.
   */
  openCallIds: z.array(z.string().max(200)).max(5000).optional(),
});

/** The history list changed (why threads were dropped, the caps, comes as a `notice`). */
export const HostThreads = z.object({
  type: z.literal('threads'),
  currentId: threadId,
  threads: z.array(ChatThreadSummary).max(MAX_LISTED_THREADS),
});
/**
 * Show thread `threadId` (New Chat, a switch, a deletion, or a view that restored another thread).
 * `transcript` is what the view saved for it (absent: empty); the view parses it as its own state.
 */
export const HostShowThread = z.object({ type: z.literal('showThread'), threadId, transcript: z.unknown().optional() });
/**
 * The host could not apply the view's `transcriptPatch` to its copy of thread `threadId` (not the
 * revision it keeps, an item out of range): the view sends the whole transcript next.
 */
export const HostTranscriptResync = z.object({ type: z.literal('transcriptResync'), threadId });
/** Open the history list (the view title's History button). */
export const HostShowHistory = z.object({ type: z.literal('showHistory') });
/** Put the keyboard in the message box (Focus Chat). */
export const HostFocusInput = z.object({ type: z.literal('focusInput') });
/** Editor text attached to the next message (Ask About Selection): a chip the user can remove. */
export const ChatAttachment = z.object({ label: z.string().min(1).max(300), context: EditorContext });
export const HostAttachSelection = z.object({ type: z.literal('attachSelection'), attachment: ChatAttachment });
/** How the chat shows things, from settings; sent again on every `ready`, like the status. */
export const HostDisplaySettings = z.object({
  type: z.literal('displaySettings'),
  /** `clientTools.chat.showExpansionSteps`: group expansions as their own card and line, not folded into the tool card. */
  showExpansionSteps: z.boolean(),
});

/** Most hunks a review card lists, and characters of each side of a hunk it shows. */
export const MAX_REVIEW_HUNKS = 200;
export const MAX_HUNK_PREVIEW = 4000;
export const MAX_REVIEW_REASON = 2000;
const reviewId = z.string().min(1).max(200);

/** An OpenDiff review as the extension reads it from the reviewed text (src/vscode/reviews/diffReview.ts). */
export const ChatReview = z.object({
  /** The record id of the call this review belongs to (its card). */
  recordId: z.string().min(1).max(100),
  reviewId,
  path: z.string().max(1000),
  newFile: z.boolean(),
  /** False once the review ended, however it ended; the call's record then says how. */
  open: z.boolean(),
  hunks: z.array(z.object({
    header: z.string().max(100),
    removed: z.string().max(MAX_HUNK_PREVIEW + 100),
    added: z.string().max(MAX_HUNK_PREVIEW + 100),
    state: z.enum(['kept', 'rejected', 'edited']),
  })).max(MAX_REVIEW_HUNKS),
  /** Hunks beyond MAX_REVIEW_HUNKS, not listed (the diff editor shows them). */
  moreHunks: z.number().int().nonnegative(),
  /** Changed lines longer than the editor draws, named (src/core/renderLimit.ts): shown next to Accept. */
  warning: z.string().max(2000).optional(),
  /**
   * An accepted review's change: `kept` (the card offers Open Diff and Undo while the file still holds
   * what was accepted) or `undone` (Undo put the file back as it was).
   */
  change: z.enum(['kept', 'undone']).optional(),
});
/** An OpenDiff review opened, changed (a hunk kept or taken back, the user typed) or ended. */
export const HostDiffReview = z.object({ type: z.literal('diffReview'), review: ChatReview });

/** Runs, files and listed hunks one `runChanges` message carries at most (the rest is counted, not listed). */
export const MAX_CHANGE_RUNS = 20;
export const MAX_CHANGE_FILES = 200;
const changeRef = { threadId: z.string().min(1).max(200), runId: z.string().min(1).max(200) };
/** A run's change list (src/vscode/reviews/runChangeList.ts): every file its calls wrote, created or deleted, not yet kept or undone. */
export const ChatRunChanges = z.object({
  ...changeRef,
  files: z.array(z.object({
    /** The file's key in the extension's record (its absolute path); an action names it back. */
    file: z.string().min(1).max(4096),
    path: z.string().min(1).max(4096),
    kind: z.enum(['created', 'changed', 'deleted']),
    hunks: ChatReview.shape.hunks,
    moreHunks: z.number().int().nonnegative(),
    /** A terminal command of the run wrote it. */
    byCommand: z.boolean().optional(),
    /** Its text before the run is not known: no diff and no Undo. */
    noEarlierCopy: z.boolean().optional(),
  })).max(MAX_CHANGE_FILES),
  /** Writes of the run the list does not hold (a folder, a file too large to keep). */
  untracked: z.number().int().nonnegative(),
});
/** Every run's change list, sent again whenever one changes and on every `ready`. */
/** Rewind to here was done: the view drops the user message that started `runId` and everything after it. */
export const HostRewound = z.object({ type: z.literal('rewound'), ...changeRef });
export const HostRunChanges = z.object({ type: z.literal('runChanges'), runs: z.array(ChatRunChanges).max(MAX_CHANGE_RUNS) });

/** The chat's own backend in the agent picker. */
export const BACKEND_AGENT = '';
export const ChatAgentOption = z.object({
  /** The agent's name (its id); `BACKEND_AGENT` is the chat's own backend. */
  name: z.string().max(64),
  /** A line for the picker's tooltip (the command, or why the agent is unavailable). */
  detail: z.string().max(300).optional(),
});
/**
 * The agents the picker offers and the one the shown thread talks to (or new threads will);
 * sent again on every `ready`, like the status.
 */
export const HostAgents = z.object({ type: z.literal('agents'), agents: z.array(ChatAgentOption).max(64), current: z.string().max(64) });

/** A line of the transcript from the extension (threads dropped by the caps). */
export const HostNotice = z.object({ type: z.literal('notice'), text: z.string().min(1).max(1000) });

/**
 * What a view that says `ready` (shown again after it was hidden, or rebuilt) gets of the host →
 * webview messages posted before; the host (src/vscode/chat/chatView.ts) follows it per message:
 * - `latest`: only the newest counts; the host keeps it and posts it again on every `ready`;
 * - `queued`: each counts once, in order; kept while the view is not listening and posted on `ready`
 *   (bounded by src/vscode/chat/pendingHostMessages.ts);
 * - `atReady`: built by the host when the view says `ready`, after the queue, and never kept;
 * - `live`: only for the page listening now, never kept (a rebuilt page does not need it).
 */
export type Replay = 'latest' | 'queued' | 'atReady' | 'live';

type MessageSchema<T extends string = string> = z.ZodObject<{ type: z.ZodLiteral<T> }>;
/** Keys are the messages' `type`s (the compiler checks it); each message says how it is replayed. */
type HostMessageRecord<R> = { [T in keyof R & string]: { schema: MessageSchema<T>; replay: Replay } };
type WebviewMessageRecord<R> = { [T in keyof R & string]: MessageSchema<T> };
const hostMessages = <R extends HostMessageRecord<R>>(record: R): R => record;
const webviewMessages = <R extends WebviewMessageRecord<R>>(record: R): R => record;

/**
 * Host → webview messages by `type`: the one place a message joins the chat (its schema above,
 * its entry here). The union, the types and the replay table derive from this record, and the
 * view's reducer (src/webview/state.ts) ends in assertNeverOr, so a message added here fails the
 * typecheck until the view handles it.
 */
const hostToWebview = hostMessages({
  status: { schema: HostStatus, replay: 'latest' },
  awaitingInput: { schema: HostAwaitingInput, replay: 'latest' },
  approval: { schema: HostApproval, replay: 'latest' },
  displaySettings: { schema: HostDisplaySettings, replay: 'latest' },
  agents: { schema: HostAgents, replay: 'latest' },
  runChanges: { schema: HostRunChanges, replay: 'latest' },
  threads: { schema: HostThreads, replay: 'latest' },
  runEvent: { schema: HostRunEvent, replay: 'queued' },
  callRecord: { schema: HostCallRecord, replay: 'queued' },
  userMessage: { schema: HostUserMessage, replay: 'queued' },
  error: { schema: HostError, replay: 'queued' },
  notice: { schema: HostNotice, replay: 'queued' },
  reset: { schema: HostReset, replay: 'queued' },
  showThread: { schema: HostShowThread, replay: 'queued' },
  diffReview: { schema: HostDiffReview, replay: 'queued' },
  focusInput: { schema: HostFocusInput, replay: 'queued' },
  attachSelection: { schema: HostAttachSelection, replay: 'queued' },
  showHistory: { schema: HostShowHistory, replay: 'queued' },
  rewound: { schema: HostRewound, replay: 'queued' },
  sync: { schema: HostSync, replay: 'atReady' },
  transcriptResync: { schema: HostTranscriptResync, replay: 'live' },
});
type HostSchemas = { [T in keyof typeof hostToWebview]: (typeof hostToWebview)[T]['schema'] };
const hostSchemas = Object.fromEntries(Object.entries(hostToWebview).map(([t, d]) => [t, d.schema])) as HostSchemas;

export const HostToWebview = unionOf(hostSchemas);
/** How each host → webview message is replayed to a view that says `ready`, by type. */
export const HOST_MESSAGE_REPLAY: { readonly [T in HostToWebview['type']]: Replay } =
  Object.fromEntries(Object.entries(hostToWebview).map(([t, d]) => [t, d.replay])) as { [T in HostToWebview['type']]: Replay };
/** The `latest` messages, in the order the host posts them on `ready`. */
export const LATEST_HOST_MESSAGES = (Object.keys(hostToWebview) as HostToWebview['type'][]).filter((t) => HOST_MESSAGE_REPLAY[t] === 'latest');

// ── webview → host ────────────────────────────────────────────────────
/** The view's script is running and listening; the host flushes its queue. */
export const WebviewReady = z.object({
  type: z.literal('ready'),
  /** The thread the view shows from its saved state; the host sends `showThread` when it is not the current one. */
  threadId: threadId.optional(),
  /**
   * When the view saved the state it restored. A restored state can be older than the host's copy
   * (the page went away before VS Code kept its last `setState`); then the host sends its copy.
   */
  savedAt: z.number().nonnegative().optional(),
});
export const WebviewSend = z.object({ type: z.literal('send'), text: z.string().trim().min(1).max(MAX_USER_TEXT), context: EditorContext.optional() });
export const WebviewStop = z.object({ type: z.literal('stop') });
/** A message typed while a run works: queued for its next tool boundary (the same id again replaces its text). */
export const WebviewSteer = z.object({ type: z.literal('steer'), steerId: z.string().min(1).max(100), text: z.string().trim().min(1).max(MAX_USER_TEXT) });
/** Compact now: summarise the conversation before its newest turn. */
export const WebviewCompact = z.object({ type: z.literal('compact') });
/** Take back a queued message that has not been delivered. */
export const WebviewWithdrawSteer = z.object({ type: z.literal('withdrawSteer'), steerId: z.string().min(1).max(100) });
export const WebviewNewChat = z.object({ type: z.literal('newChat') });
/** Re-send the last user message the view shows, with the editor context it was sent with (it survives a window reload, unlike host memory). */
export const WebviewRetry = z.object({ type: z.literal('retry'), text: z.string().trim().min(1).max(MAX_USER_TEXT), context: EditorContext.optional() });
/** Copy a code block to the clipboard. */
export const WebviewCopy = z.object({ type: z.literal('copy'), text: z.string().max(MAX_COPY_TEXT) });
/**
 * A button of the chat's own (never model text): the empty state's "Use a real model" runs Select
 * Model, a disconnected error's "Connect" connects. The view names an action, never a command id.
 */
export const ChatAction = z.enum(['selectModel', 'connect', 'useOfflineDemo', 'showLog']);
export const WebviewAction = z.object({ type: z.literal('action'), action: ChatAction });
/** The chat's answer to a ShowMessage question the extension is running: a button by its position, or null to give up. */
export const WebviewAnswerQuestion = z.object({
  type: z.literal('answerQuestion'),
  /** The record id of the ShowMessage call's card. */
  recordId: z.string().min(1).max(100),
  index: z.number().int().min(0).max(4).nullable(),
});

/**
 * The user answered the prompt `promptId`, whose card showed text with `digest`; the extension
 * refuses an answer for a prompt that is not open or whose digest differs. `reason` only with a Deny.
 */
export const WebviewApprovalAnswer = z.object({
  type: z.literal('approvalAnswer'),
  promptId: z.string().min(1).max(100),
  digest: z.string().regex(/^[0-9a-f]{64}$/),
  answer: z.union([z.enum(['allow', 'deny']), ApprovalChoiceAnswer]),
  reason: z.string().max(MAX_APPROVAL_REASON).optional(),
  /** With `edit` only: the user's value for the prompt's editable argument (checked and asked about again). */
  edited: z.string().max(MAX_EDITED_VALUE).optional(),
});

export const WebviewSwitchThread = z.object({ type: z.literal('switchThread'), threadId });
export const WebviewRenameThread = z.object({ type: z.literal('renameThread'), threadId, title: z.string().trim().min(1).max(MAX_THREAD_TITLE) });
/** The user confirmed deleting the thread in the view. */
export const WebviewDeleteThread = z.object({ type: z.literal('deleteThread'), threadId });
/** A file path in an answer was clicked; the host checks it against the workspace like OpenFile before opening it. */
export const WebviewOpenPath = z.object({ type: z.literal('openPath'), path: z.string().min(1).max(4096), line: z.number().int().positive().optional() });
/** Items of a transcript the host keeps (the view keeps at most this many: MAX_ITEMS, src/webview/stateSchema.ts). */
export const MAX_TRANSCRIPT_ITEMS = 2_000;
const transcriptItemIndex = z.number().int().nonnegative().max(MAX_TRANSCRIPT_ITEMS);
/** One item of a transcript as JSON text (an object; the host checks it parses as one). */
const transcriptItemText = z.string().min(2).max(MAX_TRANSCRIPT_CHARS);
/**
 * The view's transcript of `threadId` changed; the host keeps it (src/vscode/chat/transcriptCopy.ts)
 * to show it again later, item by item. `base: null` is the whole transcript (`append` holds every
 * item, `rest` the transcript without its items); otherwise the change from the host's copy at
 * revision `base`: drop `drop` items from the start, keep the next `keep` (the rest is cut), replace
 * the kept items at `set`'s indices, add `append` at the end, and replace the rest if `rest` is
 * there. Out of range, or not the revision the host keeps: refused, and the host asks for the whole
 * transcript (`transcriptResync`). Its texts together are at most MAX_TRANSCRIPT_CHARS.
 */
export const WebviewTranscriptPatch = z.object({
  type: z.literal('transcriptPatch'),
  threadId,
  revision: z.number().int().nonnegative(),
  base: z.number().int().nonnegative().nullable(),
  drop: transcriptItemIndex,
  keep: transcriptItemIndex,
  set: z.array(z.tuple([transcriptItemIndex, transcriptItemText])).max(MAX_TRANSCRIPT_ITEMS),
  append: z.array(transcriptItemText).max(MAX_TRANSCRIPT_ITEMS),
  rest: z.string().min(2).max(MAX_TRANSCRIPT_CHARS).optional(),
  savedAt: z.number().nonnegative(),
}).refine((p) => patchChars(p) <= MAX_TRANSCRIPT_CHARS, { message: `the texts are over ${MAX_TRANSCRIPT_CHARS} characters together` });

function patchChars(p: { set: [number, string][]; append: string[]; rest?: string | undefined }): number {
  let n = p.rest?.length ?? 0;
  for (const [, text] of p.set) n += text.length;
  for (const text of p.append) n += text.length;
  return n;
}

/** Accept or Reject on an OpenDiff review card, with the user's optional reason for the agent. */
export const WebviewDecideReview = z.object({
  type: z.literal('decideReview'),
  reviewId,
  accept: z.boolean(),
  reason: z.string().trim().max(MAX_REVIEW_REASON).optional(),
});
/** The user picked an agent in the chat (`BACKEND_AGENT` for the chat's own backend). */
export const WebviewPickAgent = z.object({ type: z.literal('pickAgent'), name: z.string().max(64) });
/** Keep (as proposed) or take back one hunk of an open review; `hunk` counts from 0. */
export const WebviewReviewHunk = z.object({ type: z.literal('reviewHunk'), reviewId, hunk: z.number().int().nonnegative().max(MAX_REVIEW_HUNKS), keep: z.boolean() });
/** The card of an accepted review: open its change in a diff editor, or undo it (src/vscode/reviews/keptChanges.ts). */
export const WebviewKeptChange = z.object({ type: z.literal('keptChange'), reviewId, action: z.enum(['open', 'undo']) });

/**
 * Keep, Undo or Open on a run's change list: the whole run (no `file`), one file, or one hunk of it
 * (`hunk`, from 0; Keep and Undo only). The extension acts only on what its own record holds.
 */
export const WebviewRunChange = z.object({
  type: z.literal('runChange'),
  ...changeRef,
  file: z.string().min(1).max(4096).optional(),
  hunk: z.number().int().nonnegative().max(MAX_REVIEW_HUNKS).optional(),
  action: z.enum(['keep', 'undo', 'open']),
});

/** Runs one Rewind to here may drop (the view keeps far fewer messages). */
export const MAX_REWIND_RUNS = 500;
/**
 * Rewind to here on the user message that started `runId`: `runIds` are that run and every later
 * one the view shows, in order. The extension checks them against its own record before acting.
 */
export const WebviewRewind = z.object({ type: z.literal('rewind'), ...changeRef, runIds: z.array(z.string().min(1).max(200)).min(1).max(MAX_REWIND_RUNS) });

/** The view could not parse a message from the host and dropped it; the host logs the coded error. */
export const WebviewRefusedMessage = z.object({
  type: z.literal('refusedMessage'),
  code: z.literal(ErrorCode.InvalidMessage),
  message: z.string().max(2000),
});

/**
 * Webview → host messages by `type`: the one place a message joins (its schema above, its entry
 * here). The host's receiver (src/vscode/chat/chatView.ts) ends in assertNever, so a message added
 * here fails the typecheck until the host handles it.
 */
const webviewToHost = webviewMessages({
  ready: WebviewReady,
  send: WebviewSend,
  stop: WebviewStop,
  newChat: WebviewNewChat,
  retry: WebviewRetry,
  copy: WebviewCopy,
  action: WebviewAction,
  answerQuestion: WebviewAnswerQuestion,
  switchThread: WebviewSwitchThread,
  renameThread: WebviewRenameThread,
  deleteThread: WebviewDeleteThread,
  transcriptPatch: WebviewTranscriptPatch,
  approvalAnswer: WebviewApprovalAnswer,
  decideReview: WebviewDecideReview,
  reviewHunk: WebviewReviewHunk,
  keptChange: WebviewKeptChange,
  openPath: WebviewOpenPath,
  pickAgent: WebviewPickAgent,
  steer: WebviewSteer,
  withdrawSteer: WebviewWithdrawSteer,
  compact: WebviewCompact,
  runChange: WebviewRunChange,
  rewind: WebviewRewind,
  refusedMessage: WebviewRefusedMessage,
});

export const WebviewToHost = unionOf(webviewToHost);

/** A message the receiving side could not parse: dropped whole (never half-applied), with this coded error. */
export interface RefusedChatMessage {
  code: typeof ErrorCode.InvalidMessage;
  /** The first fields at fault, e.g. `type: Invalid input` (no values: they may be long or hostile). */
  message: string;
}
export type Received<T> = { ok: true; message: T } | { ok: false; error: RefusedChatMessage };

function receive<T>(schema: z.ZodType<T>, raw: unknown): Received<T> {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { ok: true, message: parsed.data };
  const where = parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.').slice(0, 200) || '(root)'}: ${i.message.slice(0, 200)}`).join('; ');
  return { ok: false, error: { code: ErrorCode.InvalidMessage, message: where } };
}

/** What the host does with anything the view posts: parse it against `WebviewToHost`. */
export function receiveFromWebview(raw: unknown): Received<WebviewToHost> {
  return receive(WebviewToHost, raw);
}

/** What the view does with anything the host posts: parse it against `HostToWebview`. */
export function receiveFromHost(raw: unknown): Received<HostToWebview> {
  return receive(HostToWebview, raw);
}

export type ChatContentItem = z.infer<typeof ChatContentItem>;
export type ChatBinaryContent = z.infer<typeof ChatBinaryContent>;
export type ChatRunEvent = z.infer<typeof ChatRunEvent>;
export type ChatCallRecord = z.infer<typeof ChatCallRecord>;
export type ChatStatus = z.infer<typeof ChatStatus>;
export type ConnectionState = z.infer<typeof ConnectionState>;
export type ChatThreadSummary = z.infer<typeof ChatThreadSummary>;
export type ChatReview = z.infer<typeof ChatReview>;
export type ChatAttachment = z.infer<typeof ChatAttachment>;
export type ChatApproval = z.infer<typeof ChatApproval>;
export type ChatAction = z.infer<typeof ChatAction>;
export type ChatAgentOption = z.infer<typeof ChatAgentOption>;
export type ChatRunChanges = z.infer<typeof ChatRunChanges>;
export type HostToWebview = z.infer<typeof HostToWebview>;
export type WebviewToHost = z.infer<typeof WebviewToHost>;
export type TranscriptPatch = z.infer<typeof WebviewTranscriptPatch>;

export function isInlineImageType(mimeType: string): boolean {
  return (INLINE_IMAGE_TYPES as readonly string[]).includes(mimeType.toLowerCase());
}
