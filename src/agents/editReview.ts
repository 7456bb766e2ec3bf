/**
 * For an agent that writes on its own once its edit is allowed (opencode), the edit's permission
 * request is the per-hunk review itself: one decision, bound to the exact diff the request shows.
 * Before the review, the diff's base must be what the file holds (else TARGET_CHANGED, nothing asked
 * or written); the review is the editor's OpenDiff (path rules, protected files, its TOCTOU checks).
 * Every hunk kept: the review wrote the proposal; in `allow-whole` mode the agent is allowed (its own
 * write is that same text: opencode), and the `fs/write_text_file` it sends alongside is answered
 * from this decision, never reviewed again: it must carry exactly the approved text and the disk
 * must hold it; in `editor-writes` mode (Codex, whose patch would not apply to the file the review
 * already wrote) the agent is rejected and told, as for some hunks kept. No hunk kept:
 * reject, with the user's reason. Some kept: the review wrote the kept hunks, the agent is rejected
 * (so it writes nothing) and told which hunks of which file were written (`PartialWrite`).
 */
import { CodedError, DEFAULT_LIMITS, ErrorCode, type ClientToolInvokeResponse } from '../protocol';
import { open } from 'node:fs/promises';
import { resolveWorkspacePath } from '../core/paths';
import { sameText } from '../tools/support/format';
import type { AgentPermissionOutcome, AgentPermissionRequest, AgentToolContent, AgentWriteRequest, PartialWrite } from './agentCallbacks';
import type { PromptWorkspace } from './permissionPrompt';
import { TOOL_CALL_LIMITS } from './toolCalls';

/** Longest side of a diff the review takes from a permission request: the session clips a side at this length. */
export const MAX_REVIEWED_CHARS = TOOL_CALL_LIMITS.maxTextChars;

/** Largest file the review reads to place or check a proposal: what OpenDiff takes by default. */
const MAX_FILE_BYTES = DEFAULT_LIMITS.maxResultBytes;

/** Approved edits kept for the agent's `fs/write_text_file`, at most (the oldest is dropped). */
const MAX_APPROVALS = 16;

type Diff = Extract<AgentToolContent, { type: 'diff' }>;

/** Runs one of the editor's tools for the agent; a failed call becomes its CodedError. */
export type RunTool = (toolName: string, args: Record<string, unknown>, signal: AbortSignal) => Promise<ClientToolInvokeResponse>;

interface Approval {
  absolute: string;
  relative: string;
  content: string;
}

interface ReviewResult {
  decision?: string;
  unchanged?: boolean;
  keptHunks?: number[];
  rejectedHunks?: number[];
  editedByUser?: boolean;
  reason?: string;
  path?: string;
}

/** Whether every hunk kept allows the agent's own write (`allow-whole`), or the editor always writes and tells it (`editor-writes`). */
export type EditReviewMode = 'allow-whole' | 'editor-writes';

export class EditReview {
  private readonly approvals: Approval[] = [];

  constructor(private readonly mode: EditReviewMode, private readonly workspace: () => PromptWorkspace, private readonly runTool: RunTool) {}

  /**
   * The diffs of an edit request this review decides: one file's, one diff (`allow-whole`: the whole
   * file, as opencode sends it) or one diff per hunk (`editor-writes`: fragments, as Codex sends a
   * patch); undefined when it is not such a request (the ordinary prompt then asks, whole).
   */
  diffsOf(request: AgentPermissionRequest): Diff[] | undefined {
    if (request.toolCall.kind !== 'edit') return undefined;
    const diffs = request.toolCall.content.filter((c): c is Diff => c.type === 'diff');
    if (diffs.length === 0 || diffs.some((d) => d.path !== diffs[0]?.path)) return undefined;
    return diffs.length === 1 || this.mode === 'editor-writes' ? diffs : undefined;
  }

  /** The per-hunk review of the request's diffs, answered as the agent's option; throws a CodedError when nothing was asked. */
  async decide(request: AgentPermissionRequest, diffs: readonly Diff[], signal: AbortSignal): Promise<AgentPermissionOutcome> {
    const allow = request.options.find((o) => o.kind === 'allow_once');
    const reject = request.options.find((o) => o.kind === 'reject_once') ?? request.options.find((o) => o.kind === 'reject_always');
    if (!allow || !reject) throw new CodedError(ErrorCode.InvalidArguments, 'the edit\'s permission request offers no "allow once" or no "reject" option; the review cannot answer it');
    // A side as long as the session keeps may have been clipped (toolCalls.ts): the review shows a proposal whole or not at all.
    if (diffs.some((d) => (d.oldText ?? '').length >= MAX_REVIEWED_CHARS || d.newText.length >= MAX_REVIEWED_CHARS)) {
      throw new CodedError(ErrorCode.ChangeTooLarge, `the proposed change is larger than a permission request's review holds (${(MAX_REVIEWED_CHARS - 1).toLocaleString('en-US')} characters a side); nothing was asked or written`);
    }
    const { folders, protectedPatterns } = this.workspace();
    const target = await resolveWorkspacePath(diffs[0]?.path, folders, { protectedPatterns });
    // A protected file is not read before the user's consent (OpenDiff's rule): comparing it with the
    // agent's text first would answer, unasked, whether it holds that text (for a patch's fragments,
    // any piece of it). A whole-file proposal goes to the review as it is (OpenDiff asks about the file
    // first, then shows the real change from what the disk holds); fragments cannot be placed unread.
    let proposed: string | undefined;
    let onDisk: string | undefined;
    if (target.protected) {
      if (this.mode !== 'allow-whole') {
        throw new CodedError(ErrorCode.PermissionDenied, `${target.relative} is protected: a change to it that comes in pieces can only be placed by reading the file, which the editor does not do before you are asked; nothing was asked or written`);
      }
      proposed = (diffs[0] as Diff).newText;
    } else {
      onDisk = await readText(target.absolute);
      proposed = this.mode === 'allow-whole' ? wholeProposal(diffs[0] as Diff, onDisk) : patchedProposal(diffs, onDisk);
    }
    if (proposed === undefined) {
      throw new CodedError(ErrorCode.TargetChanged, `${target.relative} does not hold the text the proposed change was made against (${onDisk === undefined ? 'it does not exist' : 'it changed since, or the change does not say where it goes'}); nothing was asked or written`);
    }
    const response = await this.runTool('OpenDiff', { path: target.absolute, newContent: proposed }, signal);
    const result = jsonOf(response) as ReviewResult;
    const relative = result.path ?? target.relative;
    if (result.unchanged === true || (this.mode === 'allow-whole' && result.decision === 'accepted' && result.editedByUser !== true)) {
      this.approve({ absolute: target.absolute, relative, content: proposed });
      return { outcome: 'selected', optionId: allow.optionId, note: `You kept every hunk of ${relative}` };
    }
    if (result.decision === 'rejected' && !(result.keptHunks?.length || result.editedByUser)) {
      const reason = result.reason;
      return { outcome: 'selected', optionId: reject.optionId, ...(reason ? { reason, userReason: reason } : {}), note: `You rejected the change to ${relative}${reason ? `: ${reason}` : ''}` };
    }
    const written: PartialWrite = {
      path: relative,
      kept: result.keptHunks ?? [],
      rejected: result.rejectedHunks ?? [],
      editedByUser: result.editedByUser === true,
      ...(result.reason ? { reason: result.reason } : {}),
    };
    return { outcome: 'selected', optionId: reject.optionId, partialWrite: written, note: `You kept hunks ${written.kept.join(', ') || 'none'} of ${relative}; the editor wrote them` };
  }

  /**
   * The agent's write of an approved edit, answered from that decision (never a second review):
   * true once the disk holds the approved text; undefined when no approval is for this path (the
   * write is reviewed as any other). A write that is not the approved text, or a disk that no
   * longer holds it, is a coded error and writes nothing.
   */
  async answerWrite(request: AgentWriteRequest): Promise<true | undefined> {
    if (this.approvals.length === 0) return undefined;
    const { folders, protectedPatterns } = this.workspace();
    let absolute: string;
    try {
      absolute = (await resolveWorkspacePath(request.path, folders, { protectedPatterns })).absolute;
    } catch {
      return undefined;
    }
    const index = this.approvals.findIndex((a) => a.absolute === absolute);
    if (index < 0) return undefined;
    const [approval] = this.approvals.splice(index, 1) as [Approval];
    if (!sameText(request.content, approval.content)) {
      throw new CodedError(ErrorCode.PermissionDenied, `the write to ${approval.relative} is not the change the user approved; nothing was written`);
    }
    const onDisk = await readText(absolute);
    if (onDisk === undefined || !sameText(onDisk, approval.content)) {
      throw new CodedError(ErrorCode.TargetChanged, `${approval.relative} no longer holds the change the user approved (it changed since); nothing was written`);
    }
    return true;
  }

  private approve(approval: Approval): void {
    const same = this.approvals.findIndex((a) => a.absolute === approval.absolute);
    if (same >= 0) this.approvals.splice(same, 1);
    this.approvals.push(approval);
    if (this.approvals.length > MAX_APPROVALS) this.approvals.shift();
  }
}

/** The whole new text of a whole-file diff, when its base is what the disk holds (or it creates a file that does not exist). */
function wholeProposal(diff: Diff, onDisk: string | undefined): string | undefined {
  if (diff.oldText === null) return onDisk === undefined ? diff.newText : undefined;
  return onDisk !== undefined && sameText(onDisk, diff.oldText) ? diff.newText : undefined;
}

/**
 * The file's text with each fragment's old text replaced by its new text, when each old text occurs
 * exactly once in the file and no two overlap; one diff creating a file that does not exist is its
 * text. Anything else says nothing certain about where the change goes: undefined.
 */
function patchedProposal(diffs: readonly Diff[], onDisk: string | undefined): string | undefined {
  if (diffs.length === 1 && diffs[0]?.oldText === null) return onDisk === undefined ? diffs[0].newText : undefined;
  if (onDisk === undefined) return undefined;
  const placed: { at: number; old: string; text: string }[] = [];
  for (const d of diffs) {
    const old = d.oldText;
    if (old === null || old === '') return undefined;
    const at = onDisk.indexOf(old);
    if (at < 0 || onDisk.indexOf(old, at + 1) >= 0) return undefined;
    placed.push({ at, old, text: d.newText });
  }
  placed.sort((a, b) => a.at - b.at);
  let out = '';
  let from = 0;
  for (const p of placed) {
    if (p.at < from) return undefined;
    out += onDisk.slice(from, p.at) + p.text;
    from = p.at + p.old.length;
  }
  return out + onDisk.slice(from);
}

/** The file the change is for, read only up to what OpenDiff reviews (a named multi-gigabyte file is not loaded). */
async function readText(absolute: string): Promise<string | undefined> {
  let file;
  try {
    file = await open(absolute, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CodedError(ErrorCode.ToolFailed, `could not read the file the change is for: ${(e as Error).message}`);
  }
  try {
    const { size } = await file.stat();
    if (size > MAX_FILE_BYTES) throw new CodedError(ErrorCode.FileTooLarge, `the file the change is for is ${size.toLocaleString('en-US')} bytes; a review takes files up to ${MAX_FILE_BYTES.toLocaleString('en-US')} bytes; nothing was asked or written`);
    return await file.readFile('utf8');
  } catch (e) {
    if (e instanceof CodedError) throw e;
    throw new CodedError(ErrorCode.ToolFailed, `could not read the file the change is for: ${(e as Error).message}`);
  } finally {
    await file.close();
  }
}

function jsonOf(response: ClientToolInvokeResponse): Record<string, unknown> {
  const item = response.content.find((c) => c.type === 'json');
  return item && item.type === 'json' && typeof item.value === 'object' && item.value !== null ? item.value as Record<string, unknown> : {};
}
