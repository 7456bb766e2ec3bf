/** Workspace-relative display paths for paths the host reports (search results, tabs, diagnostics). */
import * as path from 'node:path';
import type { WorkspaceFolder } from '../../core/host';
import { isInside } from '../../core/paths';

export interface WorkspaceLocation {
  folder: WorkspaceFolder;
  /** Relative to the folder, `/` separators, without the folder name. */
  inFolder: string;
  /** What tools show the model: `src/a.ts`, or `api/src/a.ts` in a multi-root workspace. */
  display: string;
}

/**
 * Where an absolute path lies in the workspace, lexically (no I/O: the host reported the path,
 * it did not come from a request), or undefined when it is outside every folder.
 */
export function locateInWorkspace(absPath: string, folders: readonly WorkspaceFolder[]): WorkspaceLocation | undefined {
  let best: WorkspaceFolder | undefined;
  for (const f of folders) {
    if (isInside(absPath, f.path) && (!best || f.path.length > best.path.length)) best = f;
  }
  if (!best) return undefined;
  const inFolder = path.relative(best.path, absPath).split(path.sep).join('/');
  const display = folders.length > 1 ? (inFolder ? `${best.name}/${inFolder}` : best.name) : inFolder || '.';
  return { folder: best, inFolder, display };
}
