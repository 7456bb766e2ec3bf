/**
 * A change a language server proposes (RenameSymbol, ApplyCodeAction), taken through the same
 * review as OpenDiff: every file it touches must be inside the workspace (one that is not refuses
 * the whole change before anything is shown), protected files are named in a prompt first, and the
 * user sees one review of all the files, keeps or rejects each hunk of each file, and accepts or
 * rejects the whole. What is kept is written with one undoable edit, each file checked right
 * before the write to be the object and the text that was reviewed. Nothing is applied unseen:
 * changed lines longer than the editor draws are named, by file and line, on the review as OpenDiff
 * names them (src/core/renderLimit.ts).
 */
import { CodedError, ErrorCode } from '../../protocol';
import { consent } from '../../core/consent/consentText';
import { bindTarget, textHash, verifyTarget, verifyTextHash, type BoundTarget } from '../../core/fileIdentity';
import { headerOf, hunkReviewSliced, readReviewedText } from '../../core/hunkReview';
import { renderLimitOf, unrenderedChangeWarning, unrenderedLines } from '../../core/renderLimit';
import type { LanguageToolsHost, TextEditSpec, WorkspaceChange } from '../../core/host';
import { printablePath, type ResolvedPath } from '../../core/paths';
import { jsonResult, type JsonSchema, type Preparation, type ToolContext, type ToolResult } from '../../core/tool';
import { ensureUnchanged } from '../support/boundTarget';
import { sameText } from '../support/format';
import { afterReviewsOf } from '../support/reviewQueue';
import { arrayOf, BOOLEAN, objectOutput, REVIEW_DECISION, REVIEWED_HUNKS_OUTPUT, STRING } from '../support/outputSchemas';

/** Most files one reviewed change may touch. */
export const MAX_CHANGE_FILES = 50;

/**
 * What `reviewAndApply` answers, with the tool's own `extra` fields: the decision, each file's hunks
 * (with an accepted review, or a rejected one the user accepted with every hunk taken back), or
 * `unchanged` when the change left every file as it was.
 */
export function changeReviewOutput(extra: Record<string, unknown> = {}): JsonSchema {
  const file = objectOutput({ path: STRING, decision: REVIEW_DECISION, ...REVIEWED_HUNKS_OUTPUT, editedByUser: BOOLEAN }, ['path', 'decision', 'hunks', 'keptHunks', 'rejectedHunks', 'editedByUser']);
  return objectOutput({ decision: REVIEW_DECISION, unchanged: BOOLEAN, files: arrayOf(file), reason: STRING, message: STRING, ...extra }, ['decision']);
}

export interface ChangePreparation extends Preparation {
  files: { target: ResolvedPath; edits: TextEditSpec[] }[];
}

/**
 * Checks what the server proposed, before anything is shown: files inside the workspace only, no
 * file operations, at most MAX_CHANGE_FILES; protected files force a prompt that names them.
 */
export async function prepareChange(change: WorkspaceChange, what: string, ctx: ToolContext<LanguageToolsHost>): Promise<ChangePreparation> {
  if (change.fileOperations > 0) {
    throw new CodedError(ErrorCode.ToolFailed, `${what} would also create, rename or delete ${change.fileOperations} file(s), which this tool does not do; nothing was changed`);
  }
  const withEdits = change.files.filter((f) => f.edits.length > 0);
  if (withEdits.length === 0) throw new CodedError(ErrorCode.NotFound, `the language server proposed no change for ${what}`);
  if (withEdits.length > MAX_CHANGE_FILES) throw new CodedError(ErrorCode.ChangeTooLarge, `${what} would change ${withEdits.length} files; one review takes at most ${MAX_CHANGE_FILES}`);
  const files: ChangePreparation['files'] = [];
  for (const f of withEdits) {
    if (f.path === undefined) throw new CodedError(ErrorCode.PathInvalid, `${what} would change ${printablePath(f.uri)}, which is not a file on disk; nothing was changed`);
    const target = await ctx.resolvePath(f.path).catch((e: unknown) => {
      throw new CodedError(e instanceof CodedError ? e.code : ErrorCode.PathOutsideWorkspace, `${what} would change ${printablePath(f.path!)}, outside the workspace (${e instanceof Error ? e.message : String(e)}); nothing was changed`);
    });
    if (target.isFolderRoot || (await ctx.host.stat(target.absolute))?.kind !== 'file') {
      throw new CodedError(ErrorCode.NotFound, `${what} would change ${target.relative}, which is not an existing file; nothing was changed`);
    }
    files.push({ target, edits: f.edits });
  }
  const guarded = files.filter((f) => f.target.protected).map((f) => f.target.relative);
  if (guarded.length === 0) return { files };
  return {
    files,
    forcePrompt: true,
    prompt: `Show a proposed change (${what}) that touches ${guarded.length === 1 ? 'a protected file' : `${guarded.length} protected files`}: ${guarded.join(', ')}?`,
    detail: consent`These files can hold secrets or configuration that runs code. You will still review every hunk and accept or reject the change.`,
  };
}

/** Shows the change as one review, then writes what the user kept. */
export async function reviewAndApply(prepared: ChangePreparation | undefined, what: { title: string; message: string }, ctx: ToolContext<LanguageToolsHost>): Promise<ToolResult> {
  if (!prepared) throw new CodedError(ErrorCode.Internal, 'a change ran without its preparation');
  if (prepared.forcePrompt && !ctx.permissionGranted) throw new CodedError(ErrorCode.PathProtected, 'a change to protected files is shown only after the user agrees');
  const paths = prepared.files.map((f) => f.target.absolute);
  const waiting = () => ctx.progress('waiting: another proposed change to one of these files is still open');
  return afterReviewsOf(paths, ctx.signal, async () => {
    // Read now, under the review lock: what is read here is what the user reviews and what is checked before the write.
    const read = [];
    for (const f of prepared.files) {
      const bound = await bindTarget(f.target);
      const current = (await ctx.host.readDocument(f.target.absolute)).text;
      const proposed = applyTextEdits(current, f.edits, f.target.relative);
      if (proposed === current) continue;
      const review = await hunkReviewSliced(current, proposed);
      const limit = renderLimitOf(ctx.host, f.target.absolute);
      read.push({ ...f, bound, current, proposed, hash: textHash(current), review, limit, unrendered: unrenderedLines(review, limit) });
    }
    if (read.length === 0) return jsonResult({ decision: 'rejected', unchanged: true, message: 'The proposed change leaves every file as it is; nothing to review.' });
    const warning = unrenderedChangeWarning(read.flatMap((f) => (f.limit === undefined ? [] : [{ relative: f.target.relative, lines: f.unrendered, limit: f.limit }])));
    const outcome = await ctx.host.reviewChanges(
      {
        recordId: ctx.recordId,
        title: what.title,
        message: what.message,
        files: read.map((f) => ({ path: f.target.absolute, relative: f.target.relative, current: f.current, proposed: f.proposed, review: f.review, unrendered: f.unrendered })),
        ...(warning !== undefined ? { warning } : {}),
      },
      ctx.signal,
    );
    const why = outcome.reason ? { reason: outcome.reason } : {};
    const decided = read.map((f, i) => {
      const { review } = f;
      const content = outcome.contents?.[i] ?? f.proposed;
      const { states, editedByUser } = readReviewedText(review, content);
      const hunks = states.map((decision, h) => ({ hunk: h + 1, lines: headerOf(review, h), decision }));
      const numbers = (state: string) => hunks.filter((h) => h.decision === state).map((h) => h.hunk);
      const unchanged = sameText(content, f.current);
      const decision = unchanged ? 'rejected' : states.includes('rejected') ? 'partial' : 'accepted';
      return { f, content, unchanged, summary: { path: f.target.relative, decision, hunks, keptHunks: numbers('kept'), rejectedHunks: numbers('rejected'), editedByUser } };
    });
    const toWrite = decided.filter((d) => !d.unchanged);
    if (outcome.decision !== 'accepted' || toWrite.length === 0) {
      return jsonResult({ decision: 'rejected', ...(outcome.decision === 'accepted' ? { files: decided.map((d) => d.summary) } : {}), ...why });
    }
    if (ctx.signal.aborted) throw new CodedError(ErrorCode.Cancelled, 'the call was cancelled before the accepted change was written');
    // Every file written must be the file reviewed: the same object on the same path, the same text.
    for (const d of toWrite) await checkReviewed(ctx, d.f.bound, d.f.hash, d.f.target.absolute);
    // Again, last thing before the write: reading the documents was an await on their paths.
    for (const d of toWrite) await ensureUnchanged(ctx, d.f.bound, 'write', () => verifyTarget(d.f.bound, { sameContent: false }));
    await ctx.host.writeDocuments(toWrite.map((d) => ({ path: d.f.target.absolute, text: d.content })));
    const partial = decided.some((d) => d.summary.decision !== 'accepted');
    return jsonResult({ decision: partial ? 'partial' : 'accepted', files: decided.map((d) => d.summary), ...why });
  }, waiting);
}

async function checkReviewed(ctx: ToolContext<LanguageToolsHost>, bound: BoundTarget, hash: string, absolute: string): Promise<void> {
  await ensureUnchanged(ctx, bound, 'write', () => verifyTarget(bound, { sameContent: false }));
  const now = (await ctx.host.readDocument(absolute)).text;
  await ensureUnchanged(ctx, bound, 'write', () => verifyTextHash(bound, hash, now));
}

/** The text with the server's edits applied (zero-based ranges; none may overlap). */
export function applyTextEdits(text: string, edits: readonly TextEditSpec[], name: string): string {
  const starts = [0];
  for (const m of text.matchAll(/\r\n|\r|\n/g)) starts.push(m.index + m[0].length);
  const offset = (line: number, character: number) => {
    if (line >= starts.length) throw new CodedError(ErrorCode.ToolFailed, `the language server's edit to ${name} is past its end (line ${line + 1}); nothing was changed`);
    const lineEnd = line + 1 < starts.length ? starts[line + 1] : text.length;
    return Math.min(starts[line] + character, lineEnd);
  };
  const spans = edits
    .map((e, index) => ({ start: offset(e.range.startLine, e.range.startCharacter), end: offset(e.range.endLine, e.range.endCharacter), text: e.newText, index }))
    // From the end backwards; insertions at one place keep the server's order.
    .sort((a, b) => b.start - a.start || b.end - a.end || b.index - a.index);
  let out = text;
  let limit = Infinity;
  for (const s of spans) {
    if (s.end > limit || s.end < s.start) throw new CodedError(ErrorCode.ToolFailed, `the language server's edits to ${name} overlap; nothing was changed`);
    out = out.slice(0, s.start) + s.text + out.slice(s.end);
    limit = s.start;
  }
  return out;
}
