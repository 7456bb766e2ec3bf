/**
 * ReadFile: a workspace file's contents. Text files come back as text (optionally a range of
 * lines); images, PDFs and other binaries as binary content with their MIME type.
 * Files that hold secrets or code-running configuration are read only after the user agrees.
 */
import * as path from 'node:path';
import { CodedError, ErrorCode } from '../../protocol';
import { bindTarget, verifyTarget, type BoundTarget } from '../../core/fileIdentity';
import type { ResolvedPath } from '../../core/paths';
import { consent } from '../../core/consent/consentText';
import type { Preparation } from '../../core/tool';
import { ensureUnchanged } from '../support/boundTarget';
import { formatBytes } from '../support/format';
import { classifyFile } from '../support/mime';
import { defineIdeTool } from '../support/toolGroup';
import { pathParameter } from '../support/parameters';
import { requireFile } from '../support/requireFile';

interface ReadFileArgs {
  path: string;
  startLine?: number;
  endLine?: number;
}

interface ReadPreparation extends Preparation {
  target: ResolvedPath;
  /** The file as it was when checked (and shown in a prompt): read only if it is still that file. */
  bound: BoundTarget;
}

export const ReadFile = defineIdeTool<ReadFileArgs, ReadPreparation>({
  name: 'ReadFile',
  description:
    'Read a file of the workspace. Text comes back as text; pass startLine/endLine (1-based, inclusive) for part of a long file. ' +
    'Images, PDFs and other binary files come back as binary content with their MIME type. ' +
    'Files with secrets (.env, keys, .git/, .vscode/) need the user to agree.',
  parameters: {
    type: 'object',
    properties: {
      path: pathParameter('Workspace-relative path of the file.'),
      startLine: { type: 'integer', minimum: 1, description: 'First line to return (1-based). Text files only.' },
      endLine: { type: 'integer', minimum: 1, description: 'Last line to return (1-based, inclusive). Text files only.' },
    },
    required: ['path'],
    additionalProperties: false,
  },
  requiresPermission: false,
  effects: { readOnly: true },
  declineStrategy: 'reject',

  async prepare(args, ctx) {
    if (args.startLine !== undefined && args.endLine !== undefined && args.endLine < args.startLine) {
      throw new CodedError(ErrorCode.InvalidArguments, `endLine: ${args.endLine} is before startLine ${args.startLine}`);
    }
    const target = await ctx.resolvePath(args.path);
    const bound = await bindTarget(target);
    const stat = await requireFile(ctx.host, target, 'ReadFile reads files');
    if (stat.size > ctx.maxResultBytes) {
      throw new CodedError(ErrorCode.FileTooLarge, `${target.relative} is ${formatBytes(stat.size)}; the read limit is ${formatBytes(ctx.maxResultBytes)}`);
    }
    if (!target.protected) return { target, bound };
    return {
      target,
      bound,
      forcePrompt: true,
      prompt: `Let the agent read ${target.relative} (${formatBytes(stat.size)})?`,
      detail: consent`This file can hold secrets or configuration that runs code.`,
    };
  },

  async run(args, ctx, prepared) {
    if (!prepared) throw new CodedError(ErrorCode.Internal, 'ReadFile ran without its preparation');
    const { target, bound } = prepared;
    if (target.protected && !ctx.permissionGranted) throw new CodedError(ErrorCode.PathProtected, `${target.relative} is read only after the user agrees`);
    // A file read without a prompt may be growing (a log); one the user approved must be what they approved.
    const check = () => verifyTarget(bound, { sameContent: target.protected });
    await ensureUnchanged(ctx, bound, 'read', check);
    const bytes = await ctx.host.readFile(target.absolute);
    // The host reads by path: a swap during the read itself shows afterwards, and the bytes are dropped.
    await ensureUnchanged(ctx, bound, 'read', check);
    // The file may have grown since it was checked.
    if (bytes.byteLength > ctx.maxResultBytes) {
      throw new CodedError(ErrorCode.FileTooLarge, `${target.relative} is ${formatBytes(bytes.byteLength)}; the read limit is ${formatBytes(ctx.maxResultBytes)}`);
    }
    const kind = classifyFile(target.absolute, bytes);
    if (kind.kind === 'binary') {
      if (args.startLine !== undefined || args.endLine !== undefined) {
        throw new CodedError(ErrorCode.InvalidArguments, `startLine: ${target.relative} is a binary file (${kind.mimeType}); line ranges apply to text files`);
      }
      // File reads never produce a SharedArrayBuffer; the protocol type just says so explicitly.
      const data = bytes as Uint8Array<ArrayBuffer>;
      return { content: [{ type: 'binary', mimeType: kind.mimeType, bytes: data, filename: path.basename(target.absolute) }] };
    }
    const text = stripBom(new TextDecoder('utf-8').decode(bytes));
    return { content: [{ type: 'text', text: selectLines(text, args.startLine, args.endLine, target.relative) }] };
  },
});

/** Lines `start`..`end` (1-based, inclusive), keeping their line endings; `end` past the end is clamped. */
export function selectLines(text: string, start: number | undefined, end: number | undefined, name: string): string {
  if (start === undefined && end === undefined) return text;
  const lines = text.split(/(?<=\n)/);
  const from = (start ?? 1) - 1;
  if (from >= lines.length) throw new CodedError(ErrorCode.InvalidArguments, `startLine: ${name} has only ${lines.length} lines`);
  return lines.slice(from, end ?? lines.length).join('');
}

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
