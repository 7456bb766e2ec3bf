/**
 * The text of the `editor` context item (setting `clientTools.editorContext.enabled`): active file,
 * cursor and selection, as the backend puts it in the system prompt; and the label of a selection
 * sent with a message (`src/a.ts:3-7`). No `vscode` import, so unit tests cover it in plain Node.
 */
import type { EditorContext } from '../../protocol';

export const EDITOR_CONTEXT_NAME = 'editor';
/** Most selected characters included; the rest is counted. */
export const MAX_SELECTED_CHARS = 2000;

export interface EditorState {
  /** Workspace-relative path; undefined for an untitled document or a file outside the workspace. */
  file?: string;
  untitled?: boolean;
  outsideWorkspace?: boolean;
  /** The file can hold secrets or code-running configuration: its selected text is not shared. */
  protected?: boolean;
  language: string;
  lineCount: number;
  /** Zero-based. */
  cursor: { line: number; character: number };
  /** Zero-based; undefined for a bare cursor. */
  selection?: { startLine: number; startCharacter: number; endLine: number; endCharacter: number };
  selectedText?: string;
}

export const NO_EDITOR = 'No text editor is active.';
export const SHARING_OFF = 'Editor context sharing is off.';

export function summarizeEditor(state: EditorState | undefined): string {
  if (!state) return NO_EDITOR;
  const name = state.file ?? (state.untitled ? 'an untitled document' : 'a file outside the workspace');
  const lines = [
    `Active editor: ${name} (${state.language}, ${state.lineCount} line${state.lineCount === 1 ? '' : 's'})`,
    `Cursor: line ${state.cursor.line + 1}, column ${state.cursor.character + 1}`,
  ];
  const s = state.selection;
  if (s) {
    lines.push(`Selection: line ${s.startLine + 1}, column ${s.startCharacter + 1} to line ${s.endLine + 1}, column ${s.endCharacter + 1}`);
    const text = state.selectedText ?? '';
    if (state.protected) {
      lines.push('Selected text not shared: this file can hold secrets or configuration that runs code.');
    } else if (state.outsideWorkspace) {
      lines.push('Selected text not shared: the file is outside the workspace.');
    } else if (text !== '') {
      const shown = text.length > MAX_SELECTED_CHARS ? text.slice(0, MAX_SELECTED_CHARS) : text;
      const more = text.length - shown.length;
      lines.push(`Selected text${more > 0 ? ` (first ${MAX_SELECTED_CHARS} of ${text.length} characters)` : ''}:`, shown);
    }
  }
  return lines.join('\n');
}

/**
 * `src/a.ts:3-7` for a selection sent with a message (lines as the editor numbers them; a selection
 * ending at a line's start does not count that line); undefined when no text was selected.
 */
export function selectionLabel(context: EditorContext | undefined): string | undefined {
  const s = context?.selection;
  if (!context || !s || !context.selectedText) return undefined;
  const last = s.endCharacter === 0 && s.endLine > s.startLine ? s.endLine - 1 : s.endLine;
  const lines = last > s.startLine ? `${s.startLine + 1}-${last + 1}` : `${s.startLine + 1}`;
  return `${context.file ?? 'untitled'}:${lines}`.slice(-300);
}
