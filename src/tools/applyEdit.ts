/**
 * ApplyEdit: replaces ranges of a workspace file's text, all in one undoable edit, after the user
 * agrees. Works on the editor's buffer (unsaved changes included); saves only when asked.
 */
import { CodedError, ErrorCode } from '../protocol';
import type { TextEditSpec } from '../core/host';
import type { ResolvedPath } from '../core/paths';
import { defineTool, jsonResult, type Preparation } from '../core/tool';
import { plural } from './format';
import { describeWholeChange } from './editPreview';
import { toTextEdits, type RangeEdit } from './textEdits';

interface ApplyEditArgs {
  path: string;
  edits: RangeEdit[];
  save?: boolean;
}

interface ApplyEditPreparation extends Preparation {
  target: ResolvedPath;
  edits: TextEditSpec[];
}

export const MAX_EDITS = 500;
const position = { type: 'integer', minimum: 1, maximum: 10_000_000 };

export const ApplyEdit = defineTool<ApplyEditArgs, ApplyEditPreparation>({
  name: 'ApplyEdit',
  group: 'Editor',
  description:
    'Replace ranges of text in a workspace file, all as one edit the user can undo. Each edit has startLine, startColumn, endLine, endColumn ' +
    '(1-based; the end column is exclusive, so an equal start and end inserts) and newText ("" deletes). Edits must not overlap and refer to ' +
    'the text before any of them applies. The user is asked first and shown every edit in full, so the change must fit a dialog: at most 16 rows ' +
    'of 50 characters, one row per short edit (CHANGE_TOO_LARGE otherwise: use OpenDiff for larger changes). The file is left unsaved unless save is true.',
  parameters: {
    type: 'object',
    properties: {
      path: { type: 'string', minLength: 1, maxLength: 4096, description: 'Workspace-relative path of the file.' },
      edits: {
        type: 'array',
        minItems: 1,
        maxItems: MAX_EDITS,
        items: {
          type: 'object',
          properties: {
            startLine: position,
            startColumn: position,
            endLine: position,
            endColumn: position,
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
  declineStrategy: 'reject',
  sequential: true,

  async prepare(args, ctx) {
    const target = await ctx.resolvePath(args.path);
    const stat = await ctx.host.stat(target.absolute);
    if (!stat) throw new CodedError(ErrorCode.NotFound, `${target.relative} does not exist`);
    if (stat.kind === 'directory') throw new CodedError(ErrorCode.IsDirectory, `${target.relative} is a folder; ApplyEdit changes files`);
    // The prompt shows the whole change or the call is refused (CHANGE_TOO_LARGE), before the file is read.
    const change = describeWholeChange(args.edits);
    const doc = await ctx.host.readDocument(target.absolute);
    const edits = toTextEdits(args.edits, doc.text);
    const lines = [
      change,
      ...(args.save ? ['The file is saved afterwards.'] : []),
      ...(target.protected ? ['This file can hold secrets or configuration that runs code.'] : []),
    ];
    return {
      target,
      edits,
      prompt: `Apply ${plural(edits.length, 'edit', 'edits')} to ${target.relative}?`,
      detail: lines.join('\n'),
      forcePrompt: target.protected,
    };
  },

  async run(args, ctx, prepared) {
    if (!prepared || !ctx.permissionGranted) throw new CodedError(ErrorCode.PermissionDenied, 'ApplyEdit runs only after the user allowed it');
    const applied = await ctx.host.applyEdits(prepared.target.absolute, prepared.edits);
    const saved = args.save === true ? (await ctx.host.saveDocument(prepared.target.absolute)) === 'saved' : false;
    return jsonResult({ path: prepared.target.relative, applied: prepared.edits.length, lineCount: applied.lineCount, saved, dirty: saved ? false : applied.dirty });
  },
});
