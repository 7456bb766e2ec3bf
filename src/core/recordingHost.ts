/**
 * A tool call's view of the host that reports every file the call writes, creates or deletes, with
 * its text before and after, to the run's change list (src/core/runChanges.ts). It wraps the host's
 * writing methods only (ApplyEdit, OpenDiff's write, a rename's or code action's files, DeleteFile);
 * everything else reaches the host unchanged. A text it cannot read (a folder, a file over the
 * tracked size, a binary) is reported as untracked, never guessed.
 */
import type { DeleteOptions, IdeHost, TextEditSpec } from './host';
import { MAX_TRACKED_CHARS } from './runChanges';

export interface RecordedWrite {
  /** Absolute path. */
  file: string;
  /** Null: the file did not exist. Undefined: not tracked (a folder, too large, unreadable). */
  before: string | null | undefined;
  after: string | null | undefined;
}

export type WriteSink = (write: RecordedWrite) => void;

export function recordingHost(host: IdeHost, sink: WriteSink): IdeHost {
  const overrides: Partial<IdeHost> = {
    applyEdits: (absPath: string, edits: readonly TextEditSpec[]) => recorded(host, sink, [absPath], () => host.applyEdits(absPath, edits)),
    writeDocument: (absPath: string, text: string) => recorded(host, sink, [absPath], () => host.writeDocument(absPath, text)),
    writeDocuments: (files: readonly { path: string; text: string }[]) => recorded(host, sink, files.map((f) => f.path), () => host.writeDocuments(files)),
    deleteFile: (absPath: string, options: DeleteOptions) => recorded(host, sink, [absPath], () => host.deleteFile(absPath, options)),
  };
  return new Proxy(host, {
    get(target, property) {
      if (Object.prototype.hasOwnProperty.call(overrides, property)) return overrides[property as keyof IdeHost];
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

async function recorded<T>(host: IdeHost, sink: WriteSink, files: readonly string[], write: () => Promise<T>): Promise<T> {
  const before = await Promise.all(files.map((f) => textOf(host, f)));
  const result = await write();
  const after = await Promise.all(files.map((f) => textOf(host, f)));
  files.forEach((file, i) => sink({ file, before: before[i], after: after[i] }));
  return result;
}

/** The file's text (the editor's buffer when open); null when absent; undefined when not tracked. */
async function textOf(host: IdeHost, file: string): Promise<string | null | undefined> {
  const stat = await host.stat(file).catch(() => undefined);
  if (!stat) return null;
  if (stat.kind !== 'file' || stat.size > MAX_TRACKED_CHARS * 4) return undefined;
  try {
    const { text } = await host.readDocument(file);
    return text.length > MAX_TRACKED_CHARS || text.includes('\u0000') ? undefined : text;
  } catch {
    return undefined;
  }
}
