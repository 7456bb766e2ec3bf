/**
 * OpenDiff: shows the user a diff between a file and proposed new content and waits for Accept or
 * Reject. The user may edit the proposed side first; an accepted diff writes that final text with
 * one undoable edit and saves. Diffs for the same file open one after the other, never at once.
 * Changed lines longer than the editor draws are named in the prompt and on the review
 * (src/core/renderLimit.ts): the proposal may still be accepted, once the user was told.
 */
import { CodedError, ErrorCode } from '../../protocol';
import { consent, consentLines } from '../../core/consent/consentText';
import { longLinesOf, renderLimitOf, unrenderedLines, unrenderedWarning } from '../../core/renderLimit';
import { bindTarget, textHash, verifyTarget, verifyTextHash } from '../../core/fileIdentity';
import { COARSE_REVIEW_NOTE, headerOf, hunkReviewSliced, readReviewedTextSliced, userEditsOf } from '../../core/hunkReview';
import type { ResolvedPath } from '../../core/paths';
import { jsonResult, type Preparation } from '../../core/tool';
import { ensureUnchanged } from '../support/boundTarget';
import { formatBytes, sameText } from '../support/format';
import { afterReviewsOf } from '../support/reviewQueue';
import { defineEditorTool } from '../support/toolGroup';
import { pathParameter } from '../support/parameters';
import { BOOLEAN, INTEGER, objectOutput, STRING } from '../support/outputSchemas';

interface OpenDiffArgs {
  path: string;
  newContent: string;
}

interface DiffPreparation extends Preparation {
  target: ResolvedPath;
}

export const MAX_PROPOSED_CHARS = 5_000_000;
/** Longest `userEdits` diff in a result; the whole written text is in `content` anyway. */
const MAX_USER_EDITS_CHARS = 20_000;

export const OpenDiff = defineEditorTool<OpenDiffArgs, DiffPreparation>({
  name: 'OpenDiff',
  description:
    'Propose new content for a workspace file: the user sees a diff of the current file against newContent, may keep or reject each hunk, ' +
    'may edit the proposal, and accepts or rejects it. Blocks until then. Returns {"decision": "accepted" | "partial" | "rejected", ' +
    '"hunks": [{"hunk": n, "lines": "@@ … @@", "decision": "kept" | "rejected" | "edited"}], "keptHunks": [n], "rejectedHunks": [n], ' +
    '"content": <what was written>, "editedByUser": bool, "userEdits": <unified diff of the user\'s own edits>, "reason": <the user\'s words, if any>}; ' +
    'nothing is written when rejected. A missing file is created when accepted. Pass the complete file content, not a patch.',
  parameters: {
    type: 'object',
    properties: {
      path: pathParameter('Workspace-relative path of the file to change (or create).'),
      newContent: { type: 'string', maxLength: MAX_PROPOSED_CHARS, description: 'The complete proposed content of the file.' },
    },
    required: ['path', 'newContent'],
    additionalProperties: false,
  },
  // The diff itself is the question: nothing is written unless the user accepts it there.
  requiresPermission: false,
  effects: { readOnly: false, destructive: true },
  declineStrategy: 'reject',
  outputSchema: objectOutput({ path: STRING, decision: { enum: ['accepted', 'partial', 'rejected'] }, unchanged: BOOLEAN, newFile: BOOLEAN, hunks: { type: 'array', items: objectOutput({ hunk: INTEGER, lines: STRING, decision: STRING }, ['hunk', 'decision']) }, keptHunks: { type: 'array', items: INTEGER }, rejectedHunks: { type: 'array', items: INTEGER }, content: STRING, editedByUser: BOOLEAN, userEdits: STRING, reason: STRING, message: STRING }, ['path', 'decision']),

  async prepare(args, ctx) {
    const target = await ctx.resolvePath(args.path);
    if (target.isFolderRoot) throw new CodedError(ErrorCode.IsDirectory, `${target.relative} is a workspace folder, not a file`);
    const stat = await ctx.host.stat(target.absolute);
    if (stat?.kind === 'directory') throw new CodedError(ErrorCode.IsDirectory, `${target.relative} is a folder; OpenDiff changes files`);
    if (stat && stat.size > ctx.maxResultBytes) {
      throw new CodedError(ErrorCode.FileTooLarge, `${target.relative} is ${formatBytes(stat.size)}; OpenDiff handles files up to ${formatBytes(ctx.maxResultBytes)}`);
    }
    if (!target.protected) return { target };
    // The file is not read before consent: every long line of the proposal is named.
    const limit = renderLimitOf(ctx.host, target.absolute);
    const warning = limit === undefined ? undefined : unrenderedWarning(longLinesOf(args.newContent, limit), limit);
    return {
      target,
      forcePrompt: true,
      prompt: `Show proposed changes to ${target.relative}?`,
      detail: consentLines([
        consent`This file can hold secrets or configuration that runs code. You will still review the diff and accept or reject it.`,
        warning !== undefined ? consent`${warning}` : undefined,
      ], '\n\n'),
    };
  },

  async run(args, ctx, prepared) {
    if (!prepared) throw new CodedError(ErrorCode.Internal, 'OpenDiff ran without its preparation');
    const { target } = prepared;
    if (target.protected && !ctx.permissionGranted) throw new CodedError(ErrorCode.PathProtected, `${target.relative} is changed only after the user agrees`);
    const waiting = () => ctx.progress(`waiting: another proposed change to ${target.relative} is still open`);
    return afterReviewsOf(
      [target.absolute],
      ctx.signal,
      async () => {
        // Read now, not in prepare: an earlier review of the same file may have changed it. What is
        // read here is what the user reviews, so the identity and the text's hash are taken here too.
        const bound = await bindTarget(target);
        const exists = (await ctx.host.stat(target.absolute)) !== undefined;
        const current = exists ? (await ctx.host.readDocument(target.absolute)).text : '';
        const reviewedHash = textHash(current);
        if (exists && sameText(current, args.newContent)) {
          return jsonResult({ path: target.relative, decision: 'rejected', unchanged: true, message: 'The proposed content is the same as the file; nothing to review.' });
        }
        const review = await hunkReviewSliced(current, args.newContent);
        const limit = renderLimitOf(ctx.host, target.absolute);
        const unrendered = unrenderedLines(review, limit);
        const warning = limit === undefined ? undefined : unrenderedWarning(unrendered, limit);
        const outcome = await ctx.host.openDiff(
          {
            path: target.absolute,
            relative: target.relative,
            exists,
            proposed: args.newContent,
            title: `${target.relative} ↔ Proposed changes`,
            message: `The agent proposes ${exists ? 'changes to' : 'a new file'} ${target.relative}.${review.coarse ? ` ${COARSE_REVIEW_NOTE}` : ''}`,
            current,
            review,
            recordId: ctx.recordId,
            unrendered,
            ...(warning !== undefined ? { warning } : {}),
          },
          ctx.signal,
        );
        const why = { ...(outcome.reason ? { reason: outcome.reason } : {}), ...(review.coarse ? { message: COARSE_REVIEW_NOTE } : {}) };
        const content = outcome.content ?? args.newContent;
        const { states, editedByUser } = await readReviewedTextSliced(review, content);
        const hunks = states.map((decision, i) => ({ hunk: i + 1, lines: headerOf(review, i), decision }));
        const numbers = (state: string) => hunks.filter((h) => h.decision === state).map((h) => h.hunk);
        // Accept with every hunk taken back and nothing typed writes nothing: that is a rejection.
        const nothingLeft = exists && sameText(content, current);
        if (outcome.decision !== 'accepted' || nothingLeft) {
          return jsonResult({ path: target.relative, decision: 'rejected', ...(nothingLeft ? { rejectedHunks: numbers('rejected') } : {}), ...why });
        }
        if (ctx.signal.aborted) throw new CodedError(ErrorCode.Cancelled, 'the call was cancelled before the accepted change was written');
        // The file written must be the file reviewed: same object on the same path, same text (the
        // user's edits to the proposed side are the new content, not a change of the target).
        // The content is pinned by the text's hash (the editor's buffer when it is open), not by the
        // file's mtime, which an auto-save of that same text would change.
        const sameObject = () => verifyTarget(bound, { sameContent: false });
        await ensureUnchanged(ctx, bound, 'write', sameObject);
        if (exists) {
          const now = (await ctx.host.readDocument(target.absolute)).text;
          await ensureUnchanged(ctx, bound, 'write', () => verifyTextHash(bound, reviewedHash, now));
          // Again, last thing before the write: reading the document was an await on the path.
          await ensureUnchanged(ctx, bound, 'write', sameObject);
        }
        await ctx.host.writeDocument(target.absolute, content);
        return jsonResult({
          path: target.relative,
          decision: states.includes('rejected') ? 'partial' : 'accepted',
          ...(exists ? {} : { newFile: true }),
          hunks,
          keptHunks: numbers('kept'),
          rejectedHunks: numbers('rejected'),
          content,
          editedByUser,
          ...(editedByUser ? { userEdits: userEditsOf(review, content, states, MAX_USER_EDITS_CHARS) } : {}),
          ...why,
        });
      },
      waiting,
    );
  },
});
