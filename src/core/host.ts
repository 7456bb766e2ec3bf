/**
 * `IdeHost`: everything a tool may ask of the editor, with no VS Code types.
 *
 * `src/vscode` implements it on the VS Code API; unit tests use a plain-Node fake
 * (test/support/fake-host.ts). Tools never touch the file system or the UI any other way.
 *
 * Conventions:
 * - Paths are absolute file-system paths that have already passed `resolveWorkspacePath`
 *   (src/core/paths.ts). The host does not re-check containment; the caller did.
 * - Lines and characters in `TextRange` are zero-based, as in the VS Code API. Tools speak
 *   one-based lines and columns to the model and convert.
 * - Methods that touch files reject with a Node-style error carrying `code` (`ENOENT`, `EISDIR`, …)
 *   or with a `CodedError`; the dispatcher maps both to protocol error codes.
 */

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

export type PermissionAnswer = 'allow' | 'allowSession' | 'deny';

/** What a permission prompt shows. Built by the permission gate from the tool's local definition. */
export interface PermissionPrompt {
  requestId: string;
  toolName: string;
  groupName: string;
  /** One line naming the exact resolved target, e.g. "Delete src/old.ts (1.2 KB)?". */
  message: string;
  /** More about the target or why the prompt is forced (a protected path). */
  detail?: string;
  /** Whether to offer "Allow for this session"; false when the choice must not be remembered. */
  offerAllowSession: boolean;
}

export interface IdeHost {
  /** The open workspace folders, in VS Code's order. Empty when no folder is open. */
  workspaceFolders(): readonly WorkspaceFolder[];
  /** Workspace Trust: false in restricted mode. */
  isTrusted(): boolean;

  /** Opens a text file in an editor, optionally revealing and selecting a range. */
  openFile(absPath: string, options: OpenFileOptions): Promise<OpenedFile>;
  /** The active text editor's selection, or undefined when no text editor is active. */
  getSelection(): Promise<SelectionInfo | undefined>;
  /**
   * Shows a notification with optional buttons and resolves with the clicked button's label, or
   * undefined when it was dismissed. `text` is already sanitised by the caller.
   */
  showMessage(text: string, severity: MessageSeverity, buttons: readonly string[]): Promise<string | undefined>;

  /** Stat without throwing for a missing path: undefined means it does not exist. */
  stat(absPath: string): Promise<FileStat | undefined>;
  readFile(absPath: string): Promise<Uint8Array>;
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

  /**
   * Asks the user to allow a tool call. Resolves undefined when the prompt was dismissed. When
   * `signal` aborts (the call was cancelled or the prompt timed out) the host closes the prompt and
   * resolves undefined.
   */
  confirm(prompt: PermissionPrompt, signal: AbortSignal): Promise<PermissionAnswer | undefined>;
}
