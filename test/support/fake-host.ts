/**
 * A plain-Node `IdeHost` for unit tests. File operations hit real temporary folders on disk; editor
 * UI (open editors, selection, notifications, prompts) is recorded and scripted.
 */
import { mkdir, mkdtemp, readdir, readFile, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import type {
  AppliedEdits,
  ClosedTabs,
  CallInfo,
  ChangeReviewOutcome,
  ChangeReviewRequest,
  CodeActionInfo,
  DeleteOptions,
  DirectoryEntry,
  DiffOutcome,
  DiffRequest,
  DocumentSnapshot,
  FileDiagnostics,
  FileStat,
  FindFilesOptions,
  GitCommit,
  GitRepositoryState,
  LocationQuery,
  IdeHost,
  MessageSeverity,
  QuestionCall,
  OpenedFile,
  OpenFileOptions,
  OpenEditorInfo,
  RunCommandRequest,
  RunCommandResult,
  SaveOutcome,
  SelectionInfo,
  SourceLocation,
  SourcePosition,
  SymbolInfo,
  TaskInfo,
  TextEditSpec,
  TextRange,
  TextSearchOutcome,
  TextSearchQuery,
  WorkspaceChange,
  WorkspaceFolder,
} from '../../src/core/host';
import type { ConsentSurface } from '../../src/core/consent/consentText';
import type { PermissionAnswer, PermissionPrompt, PermissionReply, PromptPresenter } from '../../src/core/consent/presenter';
import { FakeCatalog } from './fake-catalog';
import type { CommandWrites } from '../../src/core/commandWrites';
import { FakeGit } from './fake-git';
import { FakeLanguage } from './fake-language';
import { FakeSearch } from './fake-search';
import { FakeTasks } from './fake-tasks';

/** A prompt the test holds open until it answers it (or the call withdraws it). */
export interface HeldPrompt {
  prompt: PermissionPrompt;
  signal: AbortSignal;
  answer(answer: PermissionAnswer | undefined): void;
  /** Resolves when the prompt closed, saying how. */
  closed: Promise<'answered' | 'aborted'>;
}

type PromptHandler = (prompt: PermissionPrompt, signal: AbortSignal) => Promise<PermissionAnswer | PermissionReply | undefined>;

const LANGUAGES: Record<string, string> = { '.ts': 'typescript', '.js': 'javascript', '.json': 'json', '.md': 'markdown', '.py': 'python', '.txt': 'plaintext' };

export class FakeHost implements IdeHost, PromptPresenter {
  folders: WorkspaceFolder[];
  trusted = true;
  /** What `clientTools.permissions.protectedPatterns` holds in the user's settings. */
  userProtectedPatterns: string[] = [];
  selection: SelectionInfo | undefined;
  readonly opened: { path: string; options: OpenFileOptions }[] = [];
  readonly messages: { text: string; severity: MessageSeverity; buttons: readonly string[] }[] = [];
  readonly deleted: { path: string; options: DeleteOptions }[] = [];
  readonly prompts: PermissionPrompt[] = [];
  readonly held: HeldPrompt[] = [];
  /** Prompts open at the same time, at most, so far. */
  maxOpenPrompts = 0;
  /** What the user clicks on a notification. */
  messageAnswer: (text: string, buttons: readonly string[]) => string | undefined = () => undefined;
  private promptHandler: PromptHandler = async () => 'allow';
  private openPrompts = 0;
  private heldWaiters: ((p: HeldPrompt) => void)[] = [];
  private handedOut = 0;

  constructor(folders: WorkspaceFolder[], readonly trashDir: string) {
    this.folders = folders;
  }

  // ── scripting ──────────────────────────────────────────────────────

  /** Every prompt is answered at once with `answer`. */
  answerPrompts(answer: PermissionAnswer | PermissionReply | undefined): void {
    this.promptHandler = async () => answer;
  }

  /** The prompts are answered in turn with `replies` (one each; the last answers any further prompt). */
  answerPromptsInTurn(replies: readonly (PermissionAnswer | PermissionReply | undefined)[]): void {
    let next = 0;
    this.promptHandler = async () => replies[Math.min(next++, replies.length - 1)];
  }

  /** Prompts stay open until the test answers them through `nextPrompt()`. */
  holdPrompts(): void {
    this.promptHandler = (prompt, signal) =>
      new Promise((resolve) => {
        let resolveClosed: (how: 'answered' | 'aborted') => void = () => {};
        const closed = new Promise<'answered' | 'aborted'>((r) => (resolveClosed = r));
        let done = false;
        const held: HeldPrompt = {
          prompt,
          signal,
          closed,
          answer: (a) => {
            if (done) return;
            done = true;
            resolveClosed('answered');
            resolve(a);
          },
        };
        signal.addEventListener(
          'abort',
          () => {
            if (done) return;
            done = true;
            resolveClosed('aborted');
            resolve(undefined);
          },
          { once: true },
        );
        this.held.push(held);
        const waiter = this.heldWaiters.shift();
        if (waiter) {
          this.handedOut++;
          waiter(held);
        }
      });
  }

  /** The next held prompt not yet handed out (already open, or the next to open). */
  nextPrompt(): Promise<HeldPrompt> {
    if (this.handedOut < this.held.length) return Promise.resolve(this.held[this.handedOut++]);
    return new Promise((resolve) => this.heldWaiters.push(resolve));
  }

  // ── IdeHost ────────────────────────────────────────────────────────

  workspaceFolders(): readonly WorkspaceFolder[] {
    return this.folders;
  }

  isTrusted(): boolean {
    return this.trusted;
  }

  protectedPatterns(): readonly string[] {
    return this.userProtectedPatterns;
  }

  async openFile(absPath: string, options: OpenFileOptions): Promise<OpenedFile> {
    const text = await readFile(absPath, 'utf8');
    this.opened.push({ path: absPath, options });
    return { language: LANGUAGES[path.extname(absPath)] ?? 'plaintext', lineCount: text.split('\n').length };
  }

  async getSelection(): Promise<SelectionInfo | undefined> {
    return this.selection;
  }

  // `_question` (a ShowMessage question's call) is for hosts that let the chat answer too; this one answers from messageAnswer.
  async showMessage(text: string, severity: MessageSeverity, buttons: readonly string[], _question?: QuestionCall): Promise<string | undefined> {
    this.messages.push({ text, severity, buttons });
    return this.messageAnswer(text, buttons);
  }

  async stat(absPath: string): Promise<FileStat | undefined> {
    try {
      const s = await stat(absPath);
      return { kind: s.isDirectory() ? 'directory' : s.isFile() ? 'file' : 'other', size: s.isDirectory() ? 0 : s.size };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
  }

  async readFile(absPath: string): Promise<Uint8Array> {
    return readFile(absPath);
  }

  async deleteFile(absPath: string, options: DeleteOptions): Promise<{ movedToTrash: boolean }> {
    const s = await stat(absPath);
    if (s.isDirectory() && !options.recursive) throw Object.assign(new Error(`${absPath} is a directory`), { code: 'EISDIR' });
    this.deleted.push({ path: absPath, options });
    if (options.useTrash) {
      await mkdir(this.trashDir, { recursive: true });
      await rename(absPath, path.join(this.trashDir, `${this.deleted.length}-${path.basename(absPath)}`));
    } else {
      await rm(absPath, { recursive: options.recursive });
    }
    return { movedToTrash: options.useTrash };
  }

  async countEntries(absDir: string, limit: number): Promise<number> {
    let count = 0;
    const walk = async (dir: string): Promise<void> => {
      for (const entry of await readdir(dir, { withFileTypes: true })) {
        if (count >= limit) return;
        count++;
        if (entry.isDirectory()) await walk(path.join(dir, entry.name));
      }
    };
    await walk(absDir);
    return Math.min(count, limit);
  }

  /** Where prompts are shown: the gate measures their text for it (the real default is the chat). */
  surface: ConsentSurface = 'modal';

  consentSurface(): ConsentSurface {
    return this.surface;
  }

  async confirm(prompt: PermissionPrompt, signal: AbortSignal): Promise<PermissionAnswer | PermissionReply | undefined> {
    this.prompts.push(prompt);
    this.openPrompts++;
    this.maxOpenPrompts = Math.max(this.maxOpenPrompts, this.openPrompts);
    try {
      return await this.promptHandler(prompt, signal);
    } finally {
      this.openPrompts--;
    }
  }

  // ── Workspace, Editor and Terminal groups: scripted in fake-catalog.ts ──

  readonly catalog = new FakeCatalog(() => this.folders);

  findFiles(include: string, options: FindFilesOptions): Promise<string[]> {
    return this.catalog.findFiles(include, options);
  }

  openEditors(): Promise<OpenEditorInfo[]> {
    return this.catalog.openEditors();
  }

  diagnostics(absPath?: string): Promise<FileDiagnostics[]> {
    return this.catalog.diagnostics(absPath);
  }

  readDocument(absPath: string): Promise<DocumentSnapshot> {
    return this.catalog.readDocument(absPath);
  }

  applyEdits(absPath: string, edits: readonly TextEditSpec[]): Promise<AppliedEdits> {
    return this.catalog.applyEdits(absPath, edits);
  }

  writeDocument(absPath: string, text: string): Promise<void> {
    return this.catalog.writeDocument(absPath, text);
  }

  saveDocument(absPath: string): Promise<SaveOutcome> {
    return this.catalog.saveDocument(absPath);
  }

  async documentState(absPath: string): Promise<{ open: boolean; dirty: boolean }> {
    const doc = this.catalog.documents.get(absPath);
    return { open: doc !== undefined, dirty: doc?.dirty === true };
  }

  closeTabs(absPath: string): Promise<ClosedTabs> {
    return this.catalog.closeTabs(absPath);
  }

  openDiff(request: DiffRequest, signal: AbortSignal): Promise<DiffOutcome> {
    return this.catalog.openDiff(request, signal);
  }

  renderedLineLimit(): number | undefined {
    return this.catalog.renderLimit;
  }

  runCommand(request: RunCommandRequest, signal: AbortSignal): Promise<RunCommandResult> {
    return this.catalog.runCommand(request, signal);
  }

  /** Set by a test to watch a command's writes (the editor's file watcher); unset, none are detected. */
  watchCommandWrites?: () => { stop(): Promise<CommandWrites> };

  // ── Search group: fake-search.ts (the real ripgrep runner) ──

  readonly search = new FakeSearch();

  excludeGlobs(folderPath: string, settings: 'files' | 'search'): readonly string[] {
    return this.search.excludeGlobs(folderPath, settings);
  }

  searchText(query: TextSearchQuery, signal: AbortSignal): Promise<TextSearchOutcome> {
    return this.search.searchText(query, signal);
  }

  readDirectory(absDir: string): Promise<DirectoryEntry[]> {
    return this.search.readDirectory(absDir);
  }

  // ── Language group: fake-language.ts (a scripted language server; documents from the catalog) ──

  readonly language = new FakeLanguage();

  locations(query: LocationQuery, absPath: string, position: SourcePosition): Promise<SourceLocation[]> {
    return this.language.locations(query, absPath, position);
  }

  hover(absPath: string, position: SourcePosition): Promise<string[]> {
    return this.language.hover(absPath, position);
  }

  documentSymbols(absPath: string): Promise<SymbolInfo[]> {
    return this.language.documentSymbols(absPath);
  }

  workspaceSymbols(query: string): Promise<SymbolInfo[]> {
    return this.language.workspaceSymbols(query);
  }

  callHierarchy(absPath: string, position: SourcePosition): Promise<{ symbol: SymbolInfo; calls: CallInfo[] } | undefined> {
    return this.language.callHierarchy(absPath, position);
  }

  renameEdits(absPath: string, position: SourcePosition, newName: string): Promise<WorkspaceChange> {
    return this.language.renameEdits(absPath, position, newName);
  }

  codeActions(absPath: string, range: TextRange): Promise<CodeActionInfo[]> {
    return this.language.codeActions(absPath, range);
  }

  reviewChanges(request: ChangeReviewRequest, signal: AbortSignal): Promise<ChangeReviewOutcome> {
    return this.language.reviewChanges(request, signal);
  }

  async writeDocuments(files: readonly { path: string; text: string }[]): Promise<void> {
    for (const f of files) await this.catalog.writeDocument(f.path, f.text);
    this.language.writes.push(files.map((f) => ({ ...f })));
  }

  // ── SourceControl group: fake-git.ts (scripted repositories) ──

  readonly git = new FakeGit();

  gitRepository(absPath: string): Promise<GitRepositoryState | undefined> {
    return this.git.gitRepository(absPath);
  }

  gitDiff(root: string, absPath: string, staged: boolean): Promise<string> {
    return this.git.gitDiff(root, absPath, staged);
  }

  gitLog(root: string, maxEntries: number, absPath?: string): Promise<GitCommit[]> {
    return this.git.gitLog(root, maxEntries, absPath);
  }

  // ── Tasks group: fake-tasks.ts (running a task's command is the catalog's runCommand) ──

  readonly taskList = new FakeTasks();

  listTasks(): Promise<TaskInfo[]> {
    return this.taskList.listTasks();
  }
}

/** A temporary workspace on disk: `root` holds one folder per name; removed by `dispose()`. */
export interface TempWorkspace {
  /** Real path of the temporary parent folder (outside every workspace folder). */
  root: string;
  folders: WorkspaceFolder[];
  host: FakeHost;
  /** Absolute path inside the first folder. */
  file(relative: string): string;
  write(relative: string, content: string | Uint8Array): Promise<string>;
  dispose(): Promise<void>;
}

export async function createTempWorkspace(folderNames: string[] = ['ws'], files: Record<string, string | Uint8Array> = {}): Promise<TempWorkspace> {
  const root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'client-tools-test-')));
  const folders: WorkspaceFolder[] = [];
  for (const name of folderNames) {
    const p = path.join(root, name);
    await mkdir(p, { recursive: true });
    folders.push({ name, path: p });
  }
  const host = new FakeHost(folders, path.join(root, '.trash'));
  const write = async (relative: string, content: string | Uint8Array): Promise<string> => {
    const abs = path.join(folders[0].path, relative);
    await mkdir(path.dirname(abs), { recursive: true });
    await writeFile(abs, content);
    return abs;
  };
  for (const [rel, content] of Object.entries(files)) await write(rel, content);
  return {
    root,
    folders,
    host,
    file: (relative) => path.join(folders[0].path, relative),
    write,
    dispose: () => rm(root, { recursive: true, force: true }),
  };
}
