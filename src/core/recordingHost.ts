/**
 * A tool call's view of the host that reports every file the call writes, creates or deletes, with
 * its text before and after, to the run's change list (src/core/runChanges.ts). It wraps the host's
 * writing methods only (ApplyEdit, OpenDiff's write, a rename's or code action's files, DeleteFile);
 * everything else reaches the host unchanged. A terminal command's writes (RunInTerminal, RunTask)
 * are reported too where the host can watch for them (`watchCommandWrites`), marked `byCommand`, with
 * the text before only where it was known (src/core/commandWrites.ts). A text it cannot read (a folder,
 * a file over the tracked size, a binary) is reported as untracked, never guessed.
 */
import type { CommandWrites } from './commandWrites';
import type { DeleteOptions, IdeHost, RunCommandRequest, TextEditSpec } from './host';
import { MAX_TRACKED_CHARS } from './runChanges';

export interface RecordedWrite {
  /** Absolute path. */
  file: string;
  /** Null: the file did not exist. Undefined: not tracked (a folder, too large, unreadable). */
  before: string | null | undefined;
  after: string | null | undefined;
  /** A terminal command wrote it; `before` undefined then means no earlier copy was kept (not untracked). */
  byCommand?: true;
  /** Files the command wrote past the bound: counted, not listed (`file` is empty then). */
  untracked?: number;
}

export type WriteSink = (write: RecordedWrite) => void;

export function recordingHost(host: IdeHost, sink: WriteSink, options: { watchCommands?: boolean } = {}): IdeHost {
  const overrides: Partial<IdeHost> = {
    applyEdits: (absPath: string, edits: readonly TextEditSpec[]) => recorded(host, sink, [absPath], () => host.applyEdits(absPath, edits)),
    writeDocument: (absPath: string, text: string) => recorded(host, sink, [absPath], () => host.writeDocument(absPath, text)),
    writeDocuments: (files: readonly { path: string; text: string }[]) => recorded(host, sink, files.map((f) => f.path), () => host.writeDocuments(files)),
    deleteFile: (absPath: string, options: DeleteOptions) => recorded(host, sink, [absPath], () => host.deleteFile(absPath, options)),
    runCommand: (request: RunCommandRequest, signal: AbortSignal) => (options.watchCommands ? commandRecorded(host, sink, () => host.runCommand(request, signal)) : host.runCommand(request, signal)),
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

/**
 * The command's result is not held for the watch: the watcher's events come late and in batches (a
 * real VS Code needs about a second), so the files are reported after the call has answered, to the
 * run the call was made in (the sink's caller took note of it when the call started).
 */
async function commandRecorded<T>(host: IdeHost, sink: WriteSink, run: () => Promise<T>): Promise<T> {
  const watch = host.watchCommandWrites?.();
  if (!watch) return run();
  try {
    return await run();
  } finally {
    void reportCommandWrites(host, sink, watch);
  }
}

async function reportCommandWrites(host: IdeHost, sink: WriteSink, watch: { stop(): Promise<CommandWrites> }): Promise<void> {
  try {
    const { files, dropped } = await watch.stop();
    for (const { file, before } of files) sink({ file, before, after: await textOf(host, file), byCommand: true });
    if (dropped > 0) sink({ file: '', before: undefined, after: undefined, byCommand: true, untracked: dropped });
  } catch {
    // The watch failed (its folder went away): the command's writes are not listed.
  }
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
