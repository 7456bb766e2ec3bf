/** DeleteFile: moves a file, or a folder with `recursive: true`, to the trash after the user agrees. */
import { CodedError, ErrorCode } from '../../protocol';
import { consent, consentLines, type ConsentText } from '../../core/consent/consentText';
import { bindTarget, type BoundTarget } from '../../core/fileIdentity';
import type { ResolvedPath } from '../../core/paths';
import { grantTargetOf, jsonResult, type Preparation } from '../../core/tool';
import { ensureUnchanged } from '../support/boundTarget';
import { formatBytes, plural } from '../support/format';
import { defineIdeTool } from '../support/toolGroup';
import { pathParameter } from '../support/parameters';
import { BOOLEAN, objectOutput, STRING } from '../support/outputSchemas';

interface DeleteFileArgs {
  path: string;
  recursive?: boolean;
}

interface DeletePreparation extends Preparation {
  target: ResolvedPath;
  /** What the prompt named, re-checked right before the delete. */
  bound: BoundTarget;
  isFolder: boolean;
}

/** What the prompt says happens; the result's `movedToTrash` says what did. */
const WHERE_IT_GOES = consent`It will be moved to the trash, or deleted permanently where this editor has no trash (remote and browser editors).`;
const PROTECTED_NOTE = consentLines([WHERE_IT_GOES, consent`It holds secrets or configuration that can run code.`], ' ');

/** Counting stops here; the prompt then says "more than …". */
export const MAX_COUNTED_ENTRIES = 10_000;

export const DeleteFile = defineIdeTool<DeleteFileArgs, DeletePreparation>({
  name: 'DeleteFile',
  description:
    'Delete a file of the workspace by moving it to the trash. A folder is deleted only with `recursive: true`. ' +
    'The user is asked first and may decline.',
  parameters: {
    type: 'object',
    properties: {
      path: pathParameter('Workspace-relative path of the file or folder.'),
      recursive: { type: 'boolean', description: 'Required to delete a folder and everything in it. Default false.' },
    },
    required: ['path'],
    additionalProperties: false,
  },
  requiresPermission: true,
  effects: { readOnly: false, destructive: true },
  declineStrategy: 'reject',
  outputSchema: objectOutput({ deleted: STRING, kind: { enum: ['file', 'folder'] }, movedToTrash: BOOLEAN }, ['deleted', 'kind', 'movedToTrash']),
  sequential: true,

  async prepare(args, ctx) {
    const target = await ctx.resolvePath(args.path);
    if (target.isFolderRoot) throw new CodedError(ErrorCode.PathInvalid, `${target.relative} is a workspace folder itself; it is not deleted`);
    const bound = await bindTarget(target);
    const stat = await ctx.host.stat(target.absolute);
    if (!stat || !bound.target) throw new CodedError(ErrorCode.NotFound, `${target.relative} does not exist`);
    const isFolder = stat.kind === 'directory';
    const detail: ConsentText = target.protected ? PROTECTED_NOTE : WHERE_IT_GOES;
    if (!isFolder) {
      return {
        target,
        bound,
        isFolder,
        prompt: `Delete ${target.relative} (${formatBytes(stat.size)})?`,
        detail,
        forcePrompt: target.protected,
        grantTarget: grantTargetOf(target),
      };
    }
    if (args.recursive !== true) throw new CodedError(ErrorCode.IsDirectory, `${target.relative} is a folder; pass recursive: true to delete it and its contents`);
    const count = await ctx.host.countEntries(target.absolute, MAX_COUNTED_ENTRIES);
    const folder = `${target.relative}/`;
    const prompt =
      count === 0
        ? `Delete empty folder ${folder}?`
        : count >= MAX_COUNTED_ENTRIES
          ? `Delete folder ${folder} and its more than ${plural(MAX_COUNTED_ENTRIES, 'entry', 'entries')}?`
          : `Delete folder ${folder} and its ${plural(count, 'entry', 'entries')}?`;
    return {
      target,
      bound,
      isFolder,
      prompt,
      detail,
      // A whole folder is always asked about: a remembered "allow" for single files does not cover it.
      forcePrompt: true,
    };
  },

  async run(args, ctx, prepared) {
    if (!prepared || !ctx.permissionGranted) throw new CodedError(ErrorCode.PermissionDenied, 'DeleteFile runs only after the user allowed it');
    // The prompt may have been open for minutes: the path must still lead to what the user approved.
    await ensureUnchanged(ctx, prepared.bound, 'delete');
    const { movedToTrash } = await ctx.host.deleteFile(prepared.target.absolute, { recursive: prepared.isFolder && args.recursive === true, useTrash: true });
    return jsonResult({ deleted: prepared.target.relative, kind: prepared.isFolder ? 'folder' : 'file', movedToTrash });
  },
});
