/**
 * ApplyEdit: replaces ranges of a workspace file's text, all in one undoable edit, after the user
 * agrees. Works on the editor's buffer (unsaved changes included); saves only when asked.
 */
import { CodedError, ErrorCode } from '../../protocol';
import type { TextEditSpec } from '../../core/host';
import { consent, consentLines } from '../../core/consent/consentText';
import { bindTarget, textHash, verifyTarget, verifyTextHash, type BoundTarget } from '../../core/fileIdentity';
import type { ResolvedPath } from '../../core/paths';
import { grantTargetOf, jsonResult, type Preparation } from '../../core/tool';
import { ensureUnchanged } from '../support/boundTarget';
import { plural } from '../support/format';
import { describeWholeChange } from '../support/editPreview';
import { toTextEdits, type RangeEdit } from '../support/textEdits';
import { defineEditorTool } from '../support/toolGroup';
import { pathParameter, POSITION } from '../support/parameters';
import { requireFile } from '../support/requireFile';
import { BOOLEAN, INTEGER, objectOutput, STRING } from '../support/outputSchemas';

interface ApplyEditArgs {
  path: string;
  edits: RangeEdit[];
  save?: boolean;
}

interface ApplyEditPreparation extends Preparation {
  target: ResolvedPath;
  /** The file the prompt named, re-checked before the edit and again before the save. */
  bound: BoundTarget;
  /** Checked against the text; for a protected file only after consent, in `run`. */
  edits: TextEditSpec[];
  /** SHA-256 of the text the edits were checked against (undefined for a protected file, which is not read before consent). */
  reviewedHash?: string;
}

export const MAX_EDITS = 500;

export const ApplyEdit = defineEditorTool<ApplyEditArgs, ApplyEditPreparation>({
  name: 'ApplyEdit',
  description:
    'Replace ranges of text in a workspace file, all as one edit the user can undo. Each edit has startLine, startColumn, endLine, endColumn ' +
    '(1-based; the end column is exclusive, so an equal start and end inserts) and newText ("" deletes). Edits must not overlap and refer to ' +
    'the text before any of them applies. The user is asked first and shown every edit in full, so the change must fit a dialog: at most 16 rows ' +
    'of 50 characters, one row per short edit (CHANGE_TOO_LARGE otherwise: use OpenDiff for larger changes). The file is left unsaved unless save is true.',
  parameters: {
    type: 'object',
    properties: {
      path: pathParameter('Workspace-relative path of the file.'),
      edits: {
        type: 'array',
        minItems: 1,
        maxItems: MAX_EDITS,
        items: {
          type: 'object',
          properties: {
            startLine: POSITION,
            startColumn: POSITION,
            endLine: POSITION,
            endColumn: POSITION,
            newText: { type: 'string', maxLength: 1_000_000 },
          },
          required: ['startLine', 'startColumn', 'endLine', 'endColumn', 'newText'],
          additionalProperties: false,
        },
      },
      save: { type: 'boolean', description: 'Save the file after editing. Default false.' },
    },
    required: ['path', 'edits'],
    additionalProperties: false,
  },
  requiresPermission: true,
  effects: { readOnly: false, destructive: true },
  declineStrategy: 'reject',
  outputSchema: objectOutput({ path: STRING, applied: INTEGER, lineCount: INTEGER, saved: BOOLEAN, dirty: BOOLEAN }, ['path', 'applied', 'lineCount', 'saved', 'dirty']),
  sequential: true,

  async prepare(args, ctx) {
    const target = await ctx.resolvePath(args.path);
    const bound = await bindTarget(target);
    await requireFile(ctx.host, target, 'ApplyEdit changes files');
    // The prompt shows the whole change or the call is refused (CHANGE_TOO_LARGE), built from the
    // request alone. Nothing of a protected file is read before consent: checking the edits against
    // its text would tell the backend its line count and line lengths in the error.
    const change = describeWholeChange(args.edits);
    const doc = target.protected ? undefined : await ctx.host.readDocument(target.absolute);
    const edits = doc ? toTextEdits(args.edits, doc.text) : args.edits.map(uncheckedEdit);
    const lines = [
      change,
      args.save ? consent`The file is saved afterwards.` : undefined,
      target.protected ? consent`This file can hold secrets or configuration that runs code.` : undefined,
    ];
    return {
      target,
      bound,
      edits,
      ...(doc ? { reviewedHash: textHash(doc.text) } : {}),
      prompt: `Apply ${plural(edits.length, 'edit', 'edits')} to ${target.relative}?`,
      detail: consentLines(lines),
      forcePrompt: target.protected,
      grantTarget: grantTargetOf(target),
    };
  },

  async run(args, ctx, prepared) {
    if (!prepared || !ctx.permissionGranted) throw new CodedError(ErrorCode.PermissionDenied, 'ApplyEdit runs only after the user allowed it');
    const { target, bound, reviewedHash } = prepared;
    // With a reviewed text its hash pins the content (an auto-save of the same text changes only the mtime).
    await ensureUnchanged(ctx, bound, 'edit', () => verifyTarget(bound, { sameContent: reviewedHash === undefined }));
    const doc = await ctx.host.readDocument(target.absolute);
    let edits = prepared.edits;
    if (reviewedHash === undefined) edits = toTextEdits(args.edits, doc.text);
    else await ensureUnchanged(ctx, bound, 'edit', () => verifyTextHash(bound, reviewedHash, doc.text));
    const applied = await ctx.host.applyEdits(target.absolute, edits);
    let saved = false;
    if (args.save === true) {
      // The document saved must be the file the user approved: saving writes through the path again.
      await ensureUnchanged(ctx, bound, 'save', () => verifyTarget(bound, { sameContent: false }));
      saved = (await ctx.host.saveDocument(target.absolute)) === 'saved';
    }
    return jsonResult({ path: target.relative, applied: edits.length, lineCount: applied.lineCount, saved, dirty: saved ? false : applied.dirty });
  },
});

/** The edit as the model wrote it, zero-based but not checked against any text (for the prompt of a protected file). */
function uncheckedEdit(e: RangeEdit): TextEditSpec {
  return { range: { startLine: e.startLine - 1, startCharacter: e.startColumn - 1, endLine: e.endLine - 1, endCharacter: e.endColumn - 1 }, newText: e.newText };
}
