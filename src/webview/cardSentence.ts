/**
 * The one line a tool card leads with: the action and its target as a sentence ("Read notes.md",
 * "Ran `ls -la`", "Delete hello.txt" while it waits for permission), so the card says what it is
 * in a narrow side bar where the tool's name and its clipped arguments did not. Tense follows the
 * status: "Reading" while it runs, "Read" once it succeeded, "Read" in the imperative ("Delete …")
 * while it waits or after it failed, was denied or cancelled (the status label says which). Tools
 * without a sentence of their own lead with their name. The target comes from the backend: it is
 * set as text, kept to one line and cut at TARGET_CHARS (CSS then ellipsizes to the card's width).
 * No DOM, so it is tested in Node.
 */
import type { ToolItem } from './state';

/** [while running, succeeded, otherwise] and the argument naming the target. */
type Phrase = { doing: string; done: string; todo: string; arg?: string; code?: boolean };

const PHRASES: Readonly<Record<string, Phrase>> = {
  ReadFile: { doing: 'Reading', done: 'Read', todo: 'Read', arg: 'path' },
  OpenFile: { doing: 'Opening', done: 'Opened', todo: 'Open', arg: 'path' },
  DeleteFile: { doing: 'Deleting', done: 'Deleted', todo: 'Delete', arg: 'path' },
  OpenDiff: { doing: 'Proposing changes to', done: 'Proposed changes to', todo: 'Propose changes to', arg: 'path' },
  ApplyEdit: { doing: 'Editing', done: 'Edited', todo: 'Edit', arg: 'path' },
  SaveDocument: { doing: 'Saving', done: 'Saved', todo: 'Save', arg: 'path' },
  CloseTab: { doing: 'Closing', done: 'Closed', todo: 'Close', arg: 'path' },
  RunInTerminal: { doing: 'Running', done: 'Ran', todo: 'Run', arg: 'command', code: true },
  RunTask: { doing: 'Running task', done: 'Ran task', todo: 'Run task', arg: 'name' },
  FindFiles: { doing: 'Finding files', done: 'Found files', todo: 'Find files', arg: 'pattern' },
  SearchText: { doing: 'Searching for', done: 'Searched for', todo: 'Search for', arg: 'query', code: true },
  ListDirectory: { doing: 'Listing', done: 'Listed', todo: 'List', arg: 'path' },
  GetDiagnostics: { doing: 'Checking problems in', done: 'Checked problems in', todo: 'Check problems in', arg: 'path' },
  GetSelection: { doing: 'Reading the selection', done: 'Read the selection', todo: 'Read the selection' },
  GetOpenEditors: { doing: 'Listing open editors', done: 'Listed open editors', todo: 'List open editors' },
  GetWorkspaceFolders: { doing: 'Listing workspace folders', done: 'Listed workspace folders', todo: 'List workspace folders' },
  ShowMessage: { doing: 'Showing', done: 'Showed', todo: 'Show', arg: 'message' },
  RenameSymbol: { doing: 'Renaming', done: 'Renamed', todo: 'Rename', arg: 'newName' },
  GitStatus: { doing: 'Reading git status', done: 'Read git status', todo: 'Read git status' },
  GitDiff: { doing: 'Reading the git diff', done: 'Read the git diff', todo: 'Read the git diff' },
  GitLog: { doing: 'Reading the git log', done: 'Read the git log', todo: 'Read the git log' },
};

const TARGET_CHARS = 200;

/** The card's sentence, and whether it names the call's target (then the second line need not repeat the arguments). */
export function cardSentence(item: Pick<ToolItem, 'toolName' | 'status' | 'argsJson' | 'target'>): { text: string; namesTarget: boolean } {
  const phrase = PHRASES[item.toolName];
  if (!phrase) return { text: item.toolName, namesTarget: false };
  const verb = item.status === 'succeeded' ? phrase.done : item.status === 'running' || item.status === 'pending' ? phrase.doing : phrase.todo;
  if (!phrase.arg) return { text: verb, namesTarget: true };
  const value = argument(item.argsJson, phrase.arg) ?? (phrase.arg === 'path' ? item.target : undefined);
  if (value === undefined || value === '') return { text: verb, namesTarget: false };
  const target = oneLine(value);
  if (item.toolName === 'ShowMessage') return { text: `${verb} "${target}"`, namesTarget: true };
  if (item.toolName === 'FindFiles') return { text: `${verb} matching ${target}`, namesTarget: true };
  return { text: phrase.code ? `${verb} \`${target}\`` : `${verb} ${target}`, namesTarget: true };
}

function argument(argsJson: string, key: string): string | undefined {
  try {
    const args: unknown = JSON.parse(argsJson);
    const value = args !== null && typeof args === 'object' ? (args as Record<string, unknown>)[key] : undefined;
    return typeof value === 'string' ? value : undefined;
  } catch {
    // Arguments clipped for display are not JSON any more: the sentence falls back to the target.
    return undefined;
  }
}

/** Line breaks as ⏎, control and invisible characters dropped, cut at TARGET_CHARS. */
function oneLine(text: string): string {
  const flat = text.replace(/\r?\n/g, ' ⏎ ').replace(/[\u0000-\u001f\u007f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g, '');
  return flat.length <= TARGET_CHARS ? flat : `${flat.slice(0, TARGET_CHARS)}…`;
}
