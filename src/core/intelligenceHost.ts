/**
 * The hosts of the groups built on the editor's own intelligence (Search, Language, SourceControl,
 * Tasks): their part of `IdeHost` (src/core/host.ts, which re-exports everything here), with the
 * same conventions: absolute paths already resolved by the caller, zero-based lines and characters,
 * no VS Code types.
 */
import type { DocumentSnapshot, FileReader, RunCommandRequest, RunCommandResult, TextEditSpec, TextRange, ToolHost } from './host';
import type { HunkReview } from './hunkReview';
import type { UnrenderedLine } from './renderLimit';

/** A text search as the Search group's SearchText runs it (src/tools/search/ripgrep.ts). */
export interface TextSearchQuery {
  /** Absolute folder to search, inside the workspace (already resolved). */
  root: string;
  pattern: string;
  /** A regular expression (run by a linear-time engine) rather than a literal string. */
  isRegex: boolean;
  caseSensitive: boolean;
  wholeWord: boolean;
  /** Globs a file must match (any of them), relative to its root; empty for every file. */
  includes: readonly string[];
  /** Globs of files and folders to leave out: the caller's and the user's exclude settings. */
  excludes: readonly string[];
  /** Globs to leave out whatever their case: the protected files (src/core/paths.ts). */
  excludesIgnoringCase: readonly string[];
  /** Honour `.gitignore` and `.ignore` files below each root. */
  useIgnoreFiles: boolean;
  /** Lines of context before and after each matching line. */
  contextLines: number;
  /** Matching lines returned with their text; the rest are counted only. */
  maxMatches: number;
  /** The search stops here and says it is incomplete. */
  timeoutMs: number;
}

export interface TextSearchHit {
  /** Absolute path of the file. */
  path: string;
  /** One-based line. */
  line: number;
  /** One-based column (UTF-16 code units, as editors count) of the first match; undefined with `text`. */
  column?: number;
  /** The line's text, or undefined when the line was too long to keep (`length` says how long). */
  text?: string;
  /** The line's length in bytes, when its text was not kept. */
  length?: number;
  before: readonly string[];
  after: readonly string[];
}

export interface TextSearchOutcome {
  hits: TextSearchHit[];
  /** Every matching line seen, the returned ones included. */
  matchingLines: number;
  /** Files with at least one matching line. */
  files: number;
  /** False when the time or output limit stopped the search: the counts are then lower bounds. */
  complete: boolean;
  stoppedBy?: 'time' | 'output';
}

export interface DirectoryEntry {
  name: string;
  /** A symbolic link is reported as one and never followed. */
  kind: 'file' | 'directory' | 'symlink' | 'other';
  /** Bytes, for files. */
  size?: number;
}

/** The Search group's host (src/tools/search/). */
export interface SearchToolsHost extends ToolHost, FileReader {
  /**
   * The user's exclude globs that are on for a workspace folder (`files.exclude`, and with `search`
   * also `search.exclude`); conditional ones (`{ "when": … }`) are left out.
   */
  excludeGlobs(folderPath: string, settings: 'files' | 'search'): readonly string[];
  /** Runs a text search with the editor's own ripgrep; rejects with INVALID_ARGUMENTS for a pattern it cannot run. */
  searchText(query: TextSearchQuery, signal: AbortSignal): Promise<TextSearchOutcome>;
  /** One folder's entries, without following links. */
  readDirectory(absDir: string): Promise<DirectoryEntry[]>;
}

/** A zero-based place in a document, as in the VS Code API. */
export interface SourcePosition {
  line: number;
  character: number;
}

/** A range in a document a language server named: a file on disk (`path`), or any other resource (`uri` only). */
export interface SourceLocation {
  /** Absolute file-system path, for `file:` resources. */
  path?: string;
  uri: string;
  range: TextRange;
}

export type LocationQuery = 'definition' | 'typeDefinition' | 'implementation' | 'references';

export interface SymbolInfo {
  name: string;
  /** `Function`, `Class`, … (VS Code's SymbolKind name). */
  kind: string;
  detail?: string;
  /** The enclosing symbol's name. */
  container?: string;
  /** Where the symbol is; `range` is its name (selection range) when the server says so. */
  location: SourceLocation;
  /** Nesting level in a document outline, 0 at the top. */
  depth?: number;
}

export interface CallInfo {
  /** The caller (incoming) or the callee (outgoing). */
  symbol: SymbolInfo;
  /** Where the calls are: in the caller's file for incoming calls, in the asked symbol's file for outgoing ones. */
  callSites: TextRange[];
}

/** Text edits for one resource, as a language server proposed them. */
export interface FileEdits {
  path?: string;
  uri: string;
  edits: TextEditSpec[];
}

/** A change a language server proposes (a rename, a code action). */
export interface WorkspaceChange {
  files: FileEdits[];
  /** Files it would also create, rename or delete: not applied by these tools. */
  fileOperations: number;
}

export interface CodeActionInfo {
  title: string;
  /** `quickfix`, `refactor.extract.function`, … */
  kind?: string;
  isPreferred?: boolean;
  /** Why the action cannot be applied now, when the server says it is disabled. */
  disabled?: string;
  /** The action also runs a command (which cannot be shown before it runs). */
  runsCommand: boolean;
  change?: WorkspaceChange;
}

/** One file of a multi-file change under review. */
export interface ChangeReviewFile {
  path: string;
  /** Workspace-relative, `/` separators: what the review names it. */
  relative: string;
  /** The file's text as the review read it. */
  current: string;
  proposed: string;
  /** The proposal's hunks against `current`, worked out once by the tool (the review does not diff again). */
  review: HunkReview;
  /** Its changed lines longer than the editor draws (src/core/renderLimit.ts). */
  unrendered: readonly UnrenderedLine[];
}

/** A change to several files reviewed as one: one decision, hunks kept or rejected per file. */
export interface ChangeReviewRequest {
  /** The record id of the call this review answers, so the chat shows the review on that call's card. */
  recordId: string;
  /** What the review is called ("Rename greet to salute"). */
  title: string;
  /** One sentence saying what is proposed; the host adds how to decide. */
  message: string;
  files: ChangeReviewFile[];
  /** The warning naming, by file and line, the changed lines longer than the editor draws. */
  warning?: string;
}

export interface ChangeReviewOutcome {
  decision: 'accepted' | 'rejected';
  /** With `accepted`: each file's final text, including the user's own edits, in request order. */
  contents?: string[];
  reason?: string;
}

/** The Language group's host (src/tools/language/): the language servers, through VS Code's commands. */
export interface LanguageToolsHost extends ToolHost {
  /**
   * Definitions, type definitions, implementations or references of the symbol at `position`. Right
   * after the document opened or changed, an empty answer is asked again (bounded) while the
   * language server catches up.
   */
  locations(query: LocationQuery, absPath: string, position: SourcePosition): Promise<SourceLocation[]>;
  /** The hover texts (markdown) at `position`. */
  hover(absPath: string, position: SourcePosition): Promise<string[]>;
  /** The document's outline, depth first. */
  documentSymbols(absPath: string): Promise<SymbolInfo[]>;
  /** Symbols of the whole workspace matching `query` (the server's own fuzzy match). */
  workspaceSymbols(query: string): Promise<SymbolInfo[]>;
  /** The symbol at `position` and its callers or callees; undefined when the server offers no call hierarchy there. */
  callHierarchy(absPath: string, position: SourcePosition, direction: 'incoming' | 'outgoing'): Promise<{ symbol: SymbolInfo; calls: CallInfo[] } | undefined>;
  /** What renaming the symbol at `position` would change; rejects with the server's reason when it cannot be renamed there. */
  renameEdits(absPath: string, position: SourcePosition, newName: string): Promise<WorkspaceChange>;
  /** Code actions (quick fixes, refactorings) for a range, their changes resolved. */
  codeActions(absPath: string, range: TextRange, kind: string | undefined): Promise<CodeActionInfo[]>;
  /** The document's text: the editor's buffer when it is open, else the file on disk. */
  readDocument(absPath: string): Promise<DocumentSnapshot>;
  /**
   * Shows a change to several files as one review (each file's diff, each hunk kept or rejected)
   * and resolves when the user accepts or rejects it. Writes nothing: the caller does, with `writeDocuments`.
   */
  reviewChanges(request: ChangeReviewRequest, signal: AbortSignal): Promise<ChangeReviewOutcome>;
  /** Replaces the text of every file with one undoable workspace edit, then saves them. */
  writeDocuments(files: readonly { path: string; text: string }[]): Promise<void>;
  /** What the editor draws of a line for this file, as EditorToolsHost says it. */
  renderedLineLimit?(absPath: string): number | undefined;
}

/** One changed file as the Git extension reports it. */
export interface GitChange {
  /** Absolute path. */
  path: string;
  /** `modified`, `added`, `deleted`, `renamed`, `untracked`, `both modified`, … */
  status: string;
  /** Where a renamed or copied file came from. */
  originalPath?: string;
}

export interface GitRepositoryState {
  /** Absolute path of the repository's root. */
  root: string;
  /** The checked-out branch, or undefined when HEAD is detached. */
  branch?: string;
  /** HEAD's commit hash. */
  commit?: string;
  /** `origin/main`, … */
  upstream?: string;
  ahead?: number;
  behind?: number;
  staged: GitChange[];
  unstaged: GitChange[];
  untracked: GitChange[];
  /** Files with merge conflicts. */
  conflicts: GitChange[];
}

export interface GitCommit {
  hash: string;
  message: string;
  authorName?: string;
  /** ISO 8601. */
  authorDate?: string;
}

/** The SourceControl group's host (src/tools/sourceControl/): the built-in Git extension's API, reads only. */
export interface SourceControlToolsHost extends ToolHost {
  /**
   * The repository the Git extension has open that holds `absPath` (the innermost), its status
   * refreshed; undefined when none does. Never opens a repository the Git extension has not.
   */
  gitRepository(absPath: string): Promise<GitRepositoryState | undefined>;
  /** A file's diff against HEAD: of the working tree, or with `staged` of the index. Empty when unchanged. */
  gitDiff(root: string, absPath: string, staged: boolean): Promise<string>;
  /** Recent commits, newest first; of one file or folder with `absPath`. */
  gitLog(root: string, maxEntries: number, absPath?: string): Promise<GitCommit[]>;
}

/** A task's argument as VS Code holds it: plain, or with the quoting its shell should apply. */
export type TaskArgument = string | { value: string; quoting: 'escape' | 'strong' | 'weak' };

/** How a task runs: a shell command line, a command with arguments, a process, or its extension's own code (`custom`). */
export type TaskExecution =
  | {
      kind: 'shell' | 'process';
      /** A shell task's whole command line, as written. */
      commandLine?: string;
      /** Otherwise the command (or process) and its arguments. */
      command?: TaskArgument;
      args?: TaskArgument[];
      /** The working folder as written (variables unresolved). */
      cwd?: string;
      env?: Record<string, string>;
      /** The task names a shell of its own rather than the user's. */
      customShell?: boolean;
    }
  | { kind: 'custom' };

export interface TaskInfo {
  /** The name the Tasks menu shows. */
  name: string;
  /** Where it comes from: `Workspace` (tasks.json), `npm`, `typescript`, … */
  source: string;
  /** The workspace folder's path when the task belongs to one. */
  folder?: string;
  /** `build`, `test`, … */
  group?: string;
  detail?: string;
  execution: TaskExecution;
}

/** The Tasks group's host (src/tools/tasks/). */
export interface TasksToolsHost extends ToolHost {
  /** Every task VS Code knows for the workspace (tasks.json and the task providers of its extensions). */
  listTasks(): Promise<TaskInfo[]>;
  /** Runs a task's command the user approved, in a terminal of its own, as RunInTerminal does. */
  runCommand(request: RunCommandRequest, signal: AbortSignal): Promise<RunCommandResult>;
}
