/**
 * `IdeHost`: everything a tool may ask of the editor, with no VS Code types, split by tool group so
 * each group's tools see only their part (`IdeToolsHost`, `WorkspaceToolsHost`, …).
 *
 * `src/vscode` implements it on the VS Code API; unit tests use a plain-Node fake
 * (test/support/fake-host.ts). Tools never touch the file system or the UI any other way.
 *
 * Conventions:
 * - Paths are absolute file-system paths that have already passed `resolveWorkspacePath`
 *   (src/core/paths.ts). The host does not re-check containment; the caller did, and re-checked the
 *   target's identity right before calling (src/core/fileIdentity.ts).
 * - Lines and characters in `TextRange` are zero-based, as in the VS Code API. Tools speak
 *   one-based lines and columns to the model and convert.
 * - Methods that touch files reject with a Node-style error carrying `code` (`ENOENT`, `EISDIR`, …)
 *   or with a `CodedError`; the dispatcher maps both to protocol error codes.
 */
import type { HunkReview } from './hunkReview';
import type { UnrenderedLine } from './renderLimit';
import type { CommandWrites } from './commandWrites';
import type { LanguageToolsHost, SearchToolsHost, SourceControlToolsHost, TasksToolsHost } from './intelligenceHost';

/** The Search, Language, SourceControl and Tasks groups' parts live in their own file. */
export type * from './intelligenceHost';

export interface WorkspaceFolder {
  /** The name VS Code shows for the folder; used as the first segment of paths in multi-root workspaces. */
  name: string;
  /** Absolute file-system path of the folder. */
  path: string;
  /** The folder's URI as a string, for `hello`; defaults to the `file:` URL of `path`. */
  uri?: string;
}

export interface TextRange {
  startLine: number;
  startCharacter: number;
  endLine: number;
  endCharacter: number;
}

export interface OpenFileOptions {
  /** Reveal this range and select it. Positions past the end are clamped by the host. */
  selection?: TextRange;
  /** Open in a preview tab (replaced by the next preview) rather than a pinned one. */
  preview: boolean;
}

export interface OpenedFile {
  /** The editor's language id, e.g. `typescript`. */
  language: string;
  lineCount: number;
}

export interface SelectionInfo {
  /** Absolute file-system path when the document is a file on disk. */
  path?: string;
  /** The document's URI as a string (`file:///…`, `untitled:Untitled-1`, …). */
  uri: string;
  language: string;
  selection: TextRange;
  /** The selected text (empty for a caret). */
  text: string;
  isEmpty: boolean;
}

export type MessageSeverity = 'info' | 'warning' | 'error';

export interface DeleteOptions {
  /** Required for a folder. */
  recursive: boolean;
  /** Move to the OS trash instead of deleting for good. */
  useTrash: boolean;
}

export interface FileStat {
  kind: 'file' | 'directory' | 'other';
  /** Size in bytes (0 for folders). */
  size: number;
}

export interface FindFilesOptions {
  /** Most paths the host returns (per search; the caller caps again after its own filtering). */
  maxResults: number;
}

export interface OpenEditorInfo {
  /** Absolute file-system path when the tab shows a file on disk. */
  path?: string;
  /** The tab's resource as a URI string (for a diff: the modified side). */
  uri?: string;
  /** The tab's label as VS Code shows it. */
  label: string;
  /** The active tab of the active group. */
  active: boolean;
  /** Unsaved changes. */
  dirty: boolean;
  /** Language id when the document is loaded. */
  language?: string;
  kind: 'text' | 'diff' | 'notebook' | 'other';
  /** Editor group, 1 for the first. */
  group: number;
  preview: boolean;
}

export type DiagnosticSeverity = 'error' | 'warning' | 'information' | 'hint';

export interface DiagnosticInfo {
  severity: DiagnosticSeverity;
  message: string;
  range: TextRange;
  source?: string;
  code?: string;
}

export interface FileDiagnostics {
  /** Absolute file-system path (only `file:` resources are reported). */
  path: string;
  diagnostics: DiagnosticInfo[];
}

/** A text document as the editor has it: an open document's buffer (unsaved edits included), else the file. */
export interface DocumentSnapshot {
  text: string;
  /** Loaded in the editor (a tab or in the background). */
  open: boolean;
  dirty: boolean;
  language: string;
}

export interface TextEditSpec {
  /** Zero-based; the host refuses positions past the end of the document rather than clamping them. */
  range: TextRange;
  newText: string;
}

export interface AppliedEdits {
  lineCount: number;
  dirty: boolean;
}

export type SaveOutcome = 'saved' | 'notDirty' | 'notOpen';

export interface ClosedTabs {
  closed: number;
  /** Tabs left open because they have unsaved changes. */
  keptDirty: number;
}

export interface DiffRequest {
  /** Absolute path of the file the changes are for. */
  path: string;
  /** The same file workspace-relative, with `/` separators (`src/a.ts`): what the diff's documents are named. */
  relative: string;
  /** Whether the file exists; a missing file is diffed against an empty document. */
  exists: boolean;
  /** The proposed full content (the diff's right side, which the user may edit). */
  proposed: string;
  /** The diff editor's title. */
  title: string;
  /** One sentence saying what is proposed, e.g. "The agent proposes changes to src/a.ts."; the host adds how to decide. */
  message: string;
  /** The file's text as the review read it (empty for a new file): the hunks are the proposal's changes to it. */
  current: string;
  /** Those hunks, worked out once by the tool: the review takes them from here rather than diffing the texts again. */
  review: HunkReview;
  /** The record id of the call this review answers, so the chat shows the review on that call's card. */
  recordId: string;
  /** Changed lines longer than the editor draws (src/core/renderLimit.ts), and the warning naming them. */
  unrendered: readonly UnrenderedLine[];
  warning?: string;
}

export interface DiffOutcome {
  decision: 'accepted' | 'rejected';
  /** With `accepted`: the right side's final text, including the user's own edits. */
  content?: string;
  /** Why, in the user's words, when they gave a reason (the chat's review card has a field for it). */
  reason?: string;
}

export interface RunCommandRequest {
  /** Exactly what the user approved. */
  command: string;
  /** Absolute working directory, already checked to be inside the workspace. */
  cwd: string;
  timeoutMs: number;
  /** Output kept, in characters (the host keeps the start and the end when there is more). */
  maxOutputChars: number;
}

export interface RunCommandResult {
  /** Undefined when the command was stopped (time limit, cancel, Ctrl+C) or killed by a signal. */
  exitCode?: number;
  /** Raw output (terminal escape sequences included), at most about `maxOutputChars`. */
  output: string;
  /** Output was dropped from the middle. */
  truncated: boolean;
  timedOut: boolean;
  /** Stopped before it finished by the user (Ctrl+C in its terminal, closing it) or by cancellation; not set for the time limit. */
  stopped?: boolean;
  /** Where it ran: shown in a terminal as it ran (VS Code), or as a plain process with no terminal (hosts without one, such as the test fake). */
  via: 'terminal' | 'process';
}

/**
 * What the core asks of the editor itself: the workspace it resolves paths against and whether it
 * is trusted. Every group's host has these too.
 */
export interface WorkspaceInfo {
  /** The open workspace folders, in VS Code's order. Empty when no folder is open. */
  workspaceFolders(): readonly WorkspaceFolder[];
  /** Workspace Trust: false in restricted mode. */
  isTrusted(): boolean;
  /**
   * The user's own protected-path globs (`clientTools.permissions.protectedPatterns`, user settings
   * only), which force a prompt like the built-in list. Optional: none when absent.
   */
  protectedPatterns?(): readonly string[];
}

/** The tool call a ShowMessage question belongs to: the chat answers it by its record id (its card's). */
export interface QuestionCall {
  readonly recordId: string;
  readonly signal: AbortSignal;
}

/**
 * What every built-in tool may use, whatever its group: the workspace, a stat to refuse a missing
 * target before any prompt, and a notification (src/tools/support/boundTarget.ts tells the user
 * when an approved target changed).
 */
export interface ToolHost extends WorkspaceInfo {
  /** Stat without throwing for a missing path: undefined means it does not exist. */
  stat(absPath: string): Promise<FileStat | undefined>;
  /**
   * Shows a notification with optional buttons and resolves with the clicked button's label, or
   * undefined when it was dismissed. `text` is already sanitised by the caller. With `question`
   * (a tool call that waits for the answer) the host may also take the answer elsewhere (the chat)
   * and resolves undefined when the call's signal aborts.
   */
  showMessage(text: string, severity: MessageSeverity, buttons: readonly string[], question?: QuestionCall): Promise<string | undefined>;
}

/** Reading a file's bytes from disk (the IDE group's ReadFile, the Workspace group's `.gitignore`). */
export interface FileReader {
  readFile(absPath: string): Promise<Uint8Array>;
}

/** The IDE group's host (src/tools/ide/). */
export interface IdeToolsHost extends ToolHost, FileReader {
  /** Opens a text file in an editor, optionally revealing and selecting a range. */
  openFile(absPath: string, options: OpenFileOptions): Promise<OpenedFile>;
  /** The active text editor's selection, or undefined when no text editor is active. */
  getSelection(): Promise<SelectionInfo | undefined>;
  /**
   * Resolves with whether the item went to the trash: with `useTrash`, a file system without one
   * (remote and browser editors such as code-server) deletes it for good instead.
   */
  deleteFile(absPath: string, options: DeleteOptions): Promise<{ movedToTrash: boolean }>;
  /**
   * Counts the files and folders below `absDir`, recursively, stopping at `limit`
   * (the result is then `limit`, read as "at least").
   */
  countEntries(absDir: string, limit: number): Promise<number>;
}

/** The Workspace group's host (src/tools/workspace/). */
export interface WorkspaceToolsHost extends ToolHost, FileReader {
  /**
   * Files matching a glob (relative to each workspace folder), as absolute paths, honouring
   * `files.exclude` and `search.exclude`. `.gitignore` is the caller's business.
   */
  findFiles(include: string, options: FindFilesOptions, signal: AbortSignal): Promise<string[]>;
  /** Every open tab, in group order. */
  openEditors(): Promise<OpenEditorInfo[]>;
  /** Diagnostics (problems) of one file, or of every file that has some. */
  diagnostics(absPath?: string): Promise<FileDiagnostics[]>;
}

/** The Editor group's host (src/tools/editor/). */
export interface EditorToolsHost extends ToolHost {
  /** The document's text: the editor's buffer when it is open, else the file on disk. */
  readDocument(absPath: string): Promise<DocumentSnapshot>;
  /** Applies all edits as one undoable workspace edit; does not save. */
  applyEdits(absPath: string, edits: readonly TextEditSpec[]): Promise<AppliedEdits>;
  /** Replaces the whole text with one undoable workspace edit and saves; creates the file when missing. */
  writeDocument(absPath: string, text: string): Promise<void>;
  /** Saves an open document that has unsaved changes. */
  saveDocument(absPath: string): Promise<SaveOutcome>;
  /** Whether the document is open in the editor and has unsaved changes; reads none of its text. */
  documentState(absPath: string): Promise<{ open: boolean; dirty: boolean }>;
  /** Closes the tabs showing a file; tabs with unsaved changes stay open. */
  closeTabs(absPath: string): Promise<ClosedTabs>;
  /**
   * How many characters of a line the editor draws for this file (`editor.stopRenderingLineAfter`
   * as it applies there), or undefined when it draws every line whole. Absent: VS Code's default.
   */
  renderedLineLimit?(absPath: string): number | undefined;
  /**
   * Opens a diff of the file against proposed content and resolves when the user accepts or rejects
   * it (closing the diff rejects). Does not write the file: the caller does, with `writeDocument`.
   * When `signal` aborts the diff closes and this resolves `rejected`.
   */
  openDiff(request: DiffRequest, signal: AbortSignal): Promise<DiffOutcome>;
}

/** The Terminal group's host (src/tools/terminal/). */
export interface TerminalToolsHost extends ToolHost {
  /** Runs a shell command the user approved, ending it at the time limit or when `signal` aborts. */
  runCommand(request: RunCommandRequest, signal: AbortSignal): Promise<RunCommandResult>;
  /**
   * Starts watching the workspace folders for the files a command writes (src/core/commandWrites.ts);
   * `stop` ends the watch once the command ended. Absent: a command's writes are not detected.
   */
  watchCommandWrites?(): { stop(): Promise<CommandWrites> };
}

/**
 * The whole host: every built-in group's part. The extension (src/vscode/host/ideHost.ts) and the
 * test fake implement it; each tool's context is typed with its group's part only
 * (src/tools/support/toolGroup.ts). Permission prompts are not the host's: src/core/consent/.
 */
export interface IdeHost extends IdeToolsHost, WorkspaceToolsHost, EditorToolsHost, TerminalToolsHost, SearchToolsHost, LanguageToolsHost, SourceControlToolsHost, TasksToolsHost {}
