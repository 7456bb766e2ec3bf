/**
 * A terminal command's writes under test in a process of its own, as the extension follows them
 * (src/vscode/host/commandWriteWatch.ts, src/vscode/reviews/runChangeList.ts): the open documents'
 * texts kept when the command starts (`keptOpenTexts`), the file watcher's events into the
 * collector in the batches VS Code delivers them in, the command's report through the real
 * `recordingHost` into the run's change record (attributed by `RunSpans`), listed for the chat after
 * every write and checked by the view's message schema. What the files hold afterwards is served
 * from the case (a hostile name cannot exist on disk); every other host call reaches the fake host
 * on a real temporary workspace.
 *
 *   argv: {"plant"?: "freeze" | "leak"} (a planted defect on the watcher's events, for planted.fuzz.ts)
 *   documents {batch}: documents the editor holds (already in its memory when a command starts);
 *   begin: the command starts; events {batch}: watcher events; files {batch}: what files hold
 *   afterwards; end: the command ended; resolves once the run's list has every write.
 */
import * as path from 'node:path';
import { CommandWriteCollector, keptOpenTexts, RunSpans, type WatchedChange } from '../../../src/core/commandWrites';
import type { DocumentSnapshot, FileStat, RunCommandRequest, RunCommandResult } from '../../../src/core/host';
import { isInside } from '../../../src/core/paths';
import { recordingHost, type RecordedWrite } from '../../../src/core/recordingHost';
import { RunChangeLog } from '../../../src/core/runChanges';
import { listedRunChanges } from '../../../src/core/runChangesSaved';
import { HostToWebview } from '../../../src/protocol/webview';
import { DoorHost, workspace } from '../support/doorHost';
import { onRequest, ready, serveHealth } from '../support/hostAgent';
import { planted, type Plant } from '../support/planted';

export interface CommandCase {
  documents: { path: string; text: string; dirty: boolean }[];
  events: { change: WatchedChange; path: string }[];
  files: { path: string; text: string }[];
}

const THREAD = 't';

/** The fake host, with the files as the command left them (by absolute path) and a command that ends at once. */
class CommandHost extends DoorHost {
  after = new Map<string, string>();

  override async stat(absPath: string): Promise<FileStat | undefined> {
    const text = this.after.get(absPath);
    return text === undefined ? super.stat(absPath) : { kind: 'file', size: Buffer.byteLength(text) };
  }

  override async readDocument(absPath: string): Promise<DocumentSnapshot> {
    const text = this.after.get(absPath);
    return text === undefined ? super.readDocument(absPath) : { text, open: false, dirty: false, language: 'plaintext' };
  }

  override async runCommand(_request: RunCommandRequest, _signal: AbortSignal): Promise<RunCommandResult> {
    return { exitCode: 0, output: '', truncated: false, timedOut: false, via: 'terminal' };
  }
}

async function main(): Promise<void> {
  const { plant } = JSON.parse(process.argv[2] ?? '{}') as { plant?: Plant };
  const { host: door, folder } = await workspace();
  const host = new CommandHost(door.folders, door.trashDir);
  const log = new RunChangeLog();
  const spans = new RunSpans();
  // A Uri's fsPath as VS Code hands it on: the path under the folder, not normalised (`..` stays for the collector to resolve).
  const absolute = (p: string) => `${folder}/${p}`;
  // As `vscode.workspace.asRelativePath`: relative inside the folder, else the path as given.
  const relative = (file: string) => (isInside(file, folder) ? path.relative(folder, file) : file);
  let serial = 0;
  let written = 0;
  let refusedLists = 0;
  let command: { collector: CommandWriteCollector; ended: () => void; runId: string } | undefined;
  let documents: CommandCase['documents'] = [];

  // The run change list's `fileWritten` (src/vscode/reviews/runChangeList.ts): a command's write goes to the run in progress when the call started.
  const sink = (startedAt: number) => (write: RecordedWrite) => {
    const runId = spans.runAt(THREAD, startedAt);
    if (runId !== undefined) log.recordWrite({ runId, threadId: THREAD }, write, relative(write.file));
    if (!HostToWebview.safeParse({ type: 'runChanges', runs: listedRunChanges(log, relative) }).success) refusedLists++;
    written++;
  };

  onRequest('documents', (payload) => {
    documents.push(...(payload as { batch: CommandCase['documents'] }).batch);
    return documents.length;
  });

  onRequest('begin', async () => {
    const runId = `run${++serial}`;
    const startedAt = Date.now();
    spans.started(THREAD, runId, startedAt);
    const openTexts = keptOpenTexts(documents.map((d) => ({ file: absolute(d.path), dirty: d.dirty, text: () => d.text })), host.folders);
    documents = [];
    const collector = new CommandWriteCollector(host.folders, [], openTexts);
    let ended = () => {};
    const settled = new Promise<void>((resolve) => (ended = resolve));
    host.after = new Map();
    host.watchCommandWrites = () => ({ stop: () => settled.then(() => collector.result()) });
    command = { collector, ended, runId };
    written = 0;
    refusedLists = 0;
    await recordingHost(host, sink(startedAt), { watchCommands: true }).runCommand({ command: 'x', cwd: folder, timeoutMs: 1000, maxOutputChars: 1000 }, new AbortController().signal);
    spans.ended(THREAD, runId, Date.now());
    return openTexts.size;
  });

  // The watcher's `onDidCreate`/`onDidChange`/`onDidDelete` as commandWriteWatch.ts handles them.
  onRequest('events', (payload) => {
    const { batch } = payload as { batch: CommandCase['events'] };
    planted(plant, batch);
    for (const e of batch) command?.collector.note(e.change, absolute(e.path));
    return batch.length;
  });

  onRequest('files', (payload) => {
    for (const f of (payload as { batch: CommandCase['files'] }).batch) host.after.set(absolute(f.path), f.text);
    return host.after.size;
  });

  onRequest('end', async () => {
    if (!command) return 'no command';
    const { files: listed, dropped } = command.collector.result();
    const expected = listed.length + (dropped > 0 ? 1 : 0);
    command.ended();
    const deadline = Date.now() + 15_000;
    while (written < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    const run = log.runsOf(THREAD).find((r) => r.runId === command?.runId);
    // What the command's watch held goes with it, as the editor's watch does once stopped.
    command = undefined;
    host.watchCommandWrites = undefined;
    host.after = new Map();
    if (written < expected) return `nothing within 15000 ms (${written} of ${expected} writes reported)`;
    if (refusedLists > 0) return `the protocol refuses ${refusedLists} of the lists the view would get`;
    return `${listed.length} files listed, ${dropped} counted; the run holds ${run?.files.length ?? 0} files, ${run?.untracked ?? 0} untracked`;
  });

  ready({ healthUrl: await serveHealth(), folder });
}

void main();
