/**
 * The part of the unit-test host behind the Workspace, Editor and Terminal groups: documents with
 * unsaved buffers, tabs, diagnostics, diff reviews the test accepts or rejects, and shell commands
 * answered by a script. `FakeHost` (fake-host.ts) delegates to one of these.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import type {
  AppliedEdits,
  ClosedTabs,
  DiffOutcome,
  DiffRequest,
  DocumentSnapshot,
  FileDiagnostics,
  FindFilesOptions,
  OpenEditorInfo,
  RunCommandRequest,
  RunCommandResult,
  SaveOutcome,
  TextEditSpec,
  WorkspaceFolder,
} from '../../src/core/host';
import { globToRegExp } from '../../src/core/globs';

/** A diff the test holds open until it accepts or rejects it (or the call withdraws it). */
export interface HeldDiff {
  request: DiffRequest;
  signal: AbortSignal;
  accept(content?: string, reason?: string): void;
  reject(reason?: string): void;
  /** Resolves when the diff closed, saying how. */
  closed: Promise<'accepted' | 'rejected' | 'aborted'>;
}

export class FakeCatalog {
  /** Open documents: their buffer and whether it differs from the disk. */
  readonly documents = new Map<string, { text: string; dirty: boolean }>();
  /** The tabs `openEditors` reports; `closeTabs` removes from it. */
  editors: OpenEditorInfo[] = [];
  diagnosticsList: FileDiagnostics[] = [];
  /** Globs (folder-relative) the search leaves out, as `files.exclude` would. */
  excluded: string[] = ['**/.git', '**/.git/**'];
  readonly searches: { include: string; options: FindFilesOptions }[] = [];
  readonly writes: { path: string; text: string }[] = [];
  readonly appliedEdits: { path: string; edits: readonly TextEditSpec[] }[] = [];
  /** Every path whose text `readDocument` gave out, in order. */
  readonly readDocuments: string[] = [];
  /** Runs after an edit is applied, before the call goes on (a test's chance to change the disk in between). */
  afterApplyEdits?: (absPath: string) => Promise<void>;
  readonly saves: string[] = [];
  readonly diffs: HeldDiff[] = [];
  /** What the editor draws of a line (`editor.stopRenderingLineAfter`; undefined: every line whole). */
  renderLimit: number | undefined = 10_000;
  /** Diffs open at the same time for one path, at most, so far. */
  maxOpenDiffsPerPath = 0;
  readonly commands: RunCommandRequest[] = [];
  /** What running a command does; the default succeeds silently. */
  commandHandler: (request: RunCommandRequest, signal: AbortSignal) => Promise<RunCommandResult> = async () => ({
    exitCode: 0,
    output: '',
    truncated: false,
    timedOut: false,
    via: 'process',
  });
  private readonly openDiffs = new Map<string, number>();
  private diffWaiters: ((d: HeldDiff) => void)[] = [];
  private diffsHandedOut = 0;

  constructor(private readonly folders: () => readonly WorkspaceFolder[]) {}

  /** The next held diff not yet handed out (already open, or the next to open). */
  nextDiff(): Promise<HeldDiff> {
    if (this.diffsHandedOut < this.diffs.length) return Promise.resolve(this.diffs[this.diffsHandedOut++]);
    return new Promise((resolve) => this.diffWaiters.push(resolve));
  }

  /** Puts a document in the editor with this buffer (dirty when it differs from the disk). */
  async open(absPath: string, text?: string): Promise<void> {
    const disk = await readFile(absPath, 'utf8').catch(() => undefined);
    const buffer = text ?? disk ?? '';
    this.documents.set(absPath, { text: buffer, dirty: buffer !== disk });
  }

  async findFiles(include: string, options: FindFilesOptions): Promise<string[]> {
    this.searches.push({ include, options });
    const match = globToRegExp(include);
    const excluded = this.excluded.map(globToRegExp);
    const out: string[] = [];
    for (const folder of this.folders()) {
      const walk = async (dir: string, rel: string): Promise<void> => {
        for (const entry of await readdir(dir, { withFileTypes: true })) {
          if (out.length >= options.maxResults) return;
          const childRel = rel ? `${rel}/${entry.name}` : entry.name;
          if (excluded.some((r) => r.test(childRel))) continue;
          if (entry.isDirectory()) await walk(path.join(dir, entry.name), childRel);
          else if (match.test(childRel)) out.push(path.join(dir, entry.name));
        }
      };
      await walk(folder.path, '');
    }
    return out;
  }

  async openEditors(): Promise<OpenEditorInfo[]> {
    return this.editors;
  }

  async diagnostics(absPath?: string): Promise<FileDiagnostics[]> {
    return absPath === undefined ? this.diagnosticsList : this.diagnosticsList.filter((d) => d.path === absPath);
  }

  async readDocument(absPath: string): Promise<DocumentSnapshot> {
    this.readDocuments.push(absPath);
    const doc = this.documents.get(absPath);
    if (doc) return { text: doc.text, open: true, dirty: doc.dirty, language: 'plaintext' };
    return { text: await readFile(absPath, 'utf8'), open: false, dirty: false, language: 'plaintext' };
  }

  async applyEdits(absPath: string, edits: readonly TextEditSpec[]): Promise<AppliedEdits> {
    const { text } = await this.readDocument(absPath);
    const lineStarts = [0];
    for (let i = 0; i < text.length; i++) if (text[i] === '\n') lineStarts.push(i + 1);
    const offset = (line: number, character: number) => {
      if (line >= lineStarts.length) throw new Error(`line ${line} is past the end`);
      return lineStarts[line] + character;
    };
    const ordered = [...edits].sort((a, b) => offset(b.range.startLine, b.range.startCharacter) - offset(a.range.startLine, a.range.startCharacter));
    let next = text;
    for (const e of ordered) {
      next = next.slice(0, offset(e.range.startLine, e.range.startCharacter)) + e.newText + next.slice(offset(e.range.endLine, e.range.endCharacter));
    }
    this.appliedEdits.push({ path: absPath, edits });
    this.documents.set(absPath, { text: next, dirty: true });
    await this.afterApplyEdits?.(absPath);
    return { lineCount: next.split('\n').length, dirty: true };
  }

  async writeDocument(absPath: string, text: string): Promise<void> {
    await writeFile(absPath, text);
    this.writes.push({ path: absPath, text });
    if (this.documents.has(absPath)) this.documents.set(absPath, { text, dirty: false });
  }

  async saveDocument(absPath: string): Promise<SaveOutcome> {
    const doc = this.documents.get(absPath);
    if (!doc) return 'notOpen';
    if (!doc.dirty) return 'notDirty';
    await writeFile(absPath, doc.text);
    doc.dirty = false;
    this.saves.push(absPath);
    return 'saved';
  }

  async closeTabs(absPath: string): Promise<ClosedTabs> {
    const showing = this.editors.filter((e) => e.path === absPath);
    const kept = showing.filter((e) => e.dirty);
    this.editors = this.editors.filter((e) => e.path !== absPath || e.dirty);
    return { closed: showing.length - kept.length, keptDirty: kept.length };
  }

  openDiff(request: DiffRequest, signal: AbortSignal): Promise<DiffOutcome> {
    const open = (this.openDiffs.get(request.path) ?? 0) + 1;
    this.openDiffs.set(request.path, open);
    this.maxOpenDiffsPerPath = Math.max(this.maxOpenDiffsPerPath, open);
    return new Promise((resolve) => {
      let resolveClosed: (how: 'accepted' | 'rejected' | 'aborted') => void = () => {};
      const closed = new Promise<'accepted' | 'rejected' | 'aborted'>((r) => (resolveClosed = r));
      let done = false;
      const finish = (how: 'accepted' | 'rejected' | 'aborted', outcome: DiffOutcome) => {
        if (done) return;
        done = true;
        this.openDiffs.set(request.path, (this.openDiffs.get(request.path) ?? 1) - 1);
        resolveClosed(how);
        resolve(outcome);
      };
      const held: HeldDiff = {
        request,
        signal,
        closed,
        accept: (content, reason) => finish('accepted', { decision: 'accepted', content: content ?? request.proposed, ...(reason ? { reason } : {}) }),
        reject: (reason) => finish('rejected', { decision: 'rejected', ...(reason ? { reason } : {}) }),
      };
      signal.addEventListener('abort', () => finish('aborted', { decision: 'rejected' }), { once: true });
      this.diffs.push(held);
      const waiter = this.diffWaiters.shift();
      if (waiter) {
        this.diffsHandedOut++;
        waiter(held);
      }
    });
  }

  runCommand(request: RunCommandRequest, signal: AbortSignal): Promise<RunCommandResult> {
    this.commands.push(request);
    return this.commandHandler(request, signal);
  }
}
