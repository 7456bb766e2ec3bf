/** The refusal shared by the tools that work on one existing file: a missing path or a folder ends the call before any prompt. */
import { CodedError, ErrorCode } from '../../protocol';
import type { FileStat, ToolHost } from '../../core/host';
import type { ResolvedPath } from '../../core/paths';

/**
 * Stats the target; NOT_FOUND when it is missing, IS_DIRECTORY when it is a folder, the message
 * ending with `purpose` ("ReadFile reads files") so the model learns which tool it needs instead.
 */
export async function requireFile(host: ToolHost, target: ResolvedPath, purpose: string): Promise<FileStat> {
  const stat = await host.stat(target.absolute);
  if (!stat) throw new CodedError(ErrorCode.NotFound, `${target.relative} does not exist`);
  if (stat.kind === 'directory') throw new CodedError(ErrorCode.IsDirectory, `${target.relative} is a folder; ${purpose}`);
  return stat;
}
