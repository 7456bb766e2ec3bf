/**
 * The Workspace group's part of `IdeHost` on the VS Code API (VsCodeIdeHost delegates here): file
 * search with the user's exclude settings, the open tabs, diagnostics.
 */
import * as vscode from 'vscode';
import type { DiagnosticSeverity, FileDiagnostics, FindFilesOptions, OpenEditorInfo, TextRange, WorkspaceFolder } from '../../core/host';
import { expandBraces } from '../../core/globs';

/** Exclude globs joined into one `{a,b,…}` pattern, at most this many (VS Code has no list form). */
const MAX_EXCLUDES = 500;

/** The open workspace's folders on disk (`file:`), as the core's path checks take them. */
export function fileWorkspaceFolders(): WorkspaceFolder[] {
  return (vscode.workspace.workspaceFolders ?? [])
    .filter((f) => f.uri.scheme === 'file')
    .map((f) => ({ name: f.name, path: f.uri.fsPath, uri: f.uri.toString() }));
}

/**
 * `findFiles` with `files.exclude` and `search.exclude` of each folder (passing an exclude pattern
 * switches VS Code's default `files.exclude` off, so both are joined into one). Conditional
 * excludes (`{ "when": … }`) are not applied.
 */
export async function findFiles(include: string, options: FindFilesOptions, signal: AbortSignal): Promise<string[]> {
  const source = new vscode.CancellationTokenSource();
  const onAbort = () => source.cancel();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    const out: string[] = [];
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
      if (folder.uri.scheme !== 'file' || out.length >= options.maxResults) continue;
      const exclude = excludePattern(folder.uri);
      const found = await vscode.workspace.findFiles(new vscode.RelativePattern(folder, include), exclude, options.maxResults - out.length, source.token);
      for (const uri of found) if (uri.scheme === 'file') out.push(uri.fsPath);
    }
    return out;
  } finally {
    signal.removeEventListener('abort', onAbort);
    source.dispose();
  }
}

function excludePattern(folder: vscode.Uri): string | null {
  const globs = new Set<string>();
  for (const glob of excludeGlobs(folder.fsPath, 'search')) {
    // A comma left after brace expansion (inside [...]) cannot be joined into one {a,b} pattern.
    for (const g of expandBraces(glob)) if (!g.includes(',')) globs.add(g);
  }
  const list = [...globs].slice(0, MAX_EXCLUDES);
  return list.length === 0 ? null : `{${list.join(',')}}`;
}

/** The exclude globs switched on for a folder: `files.exclude`, and with `search` also `search.exclude`; conditional ones left out. */
export function excludeGlobs(folderPath: string, settings: 'files' | 'search'): string[] {
  const globs = new Set<string>();
  for (const section of settings === 'search' ? ['files', 'search'] : ['files']) {
    const map = vscode.workspace.getConfiguration(section, vscode.Uri.file(folderPath)).get<Record<string, unknown>>('exclude') ?? {};
    for (const [glob, on] of Object.entries(map)) if (on === true) globs.add(glob);
  }
  return [...globs];
}

export async function openEditors(): Promise<OpenEditorInfo[]> {
  const out: OpenEditorInfo[] = [];
  const active = vscode.window.tabGroups.activeTabGroup.activeTab;
  for (const group of vscode.window.tabGroups.all) {
    for (const tab of group.tabs) {
      const { kind, uri } = describeInput(tab.input);
      const doc = uri ? vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString()) : undefined;
      out.push({
        ...(uri?.scheme === 'file' ? { path: uri.fsPath } : {}),
        ...(uri ? { uri: uri.toString() } : {}),
        label: tab.label,
        active: tab === active,
        dirty: tab.isDirty,
        ...(doc ? { language: doc.languageId } : {}),
        kind,
        group: group.viewColumn,
        preview: tab.isPreview,
      });
    }
  }
  return out;
}

function describeInput(input: unknown): { kind: OpenEditorInfo['kind']; uri?: vscode.Uri } {
  if (input instanceof vscode.TabInputText) return { kind: 'text', uri: input.uri };
  if (input instanceof vscode.TabInputTextDiff) return { kind: 'diff', uri: input.modified };
  if (input instanceof vscode.TabInputNotebook) return { kind: 'notebook', uri: input.uri };
  if (input instanceof vscode.TabInputNotebookDiff) return { kind: 'diff', uri: input.modified };
  if (input instanceof vscode.TabInputCustom) return { kind: 'other', uri: input.uri };
  return { kind: 'other' };
}

const SEVERITY: Record<vscode.DiagnosticSeverity, DiagnosticSeverity> = {
  [vscode.DiagnosticSeverity.Error]: 'error',
  [vscode.DiagnosticSeverity.Warning]: 'warning',
  [vscode.DiagnosticSeverity.Information]: 'information',
  [vscode.DiagnosticSeverity.Hint]: 'hint',
};

export async function diagnostics(absPath?: string): Promise<FileDiagnostics[]> {
  const entries: [vscode.Uri, readonly vscode.Diagnostic[]][] =
    absPath === undefined ? vscode.languages.getDiagnostics() : [[vscode.Uri.file(absPath), vscode.languages.getDiagnostics(vscode.Uri.file(absPath))]];
  return entries
    .filter(([uri, list]) => uri.scheme === 'file' && list.length > 0)
    .map(([uri, list]) => ({
      path: uri.fsPath,
      diagnostics: list.map((d) => ({
        severity: SEVERITY[d.severity] ?? 'information',
        message: d.message,
        range: toRange(d.range),
        ...(d.source ? { source: d.source } : {}),
        ...(d.code !== undefined ? { code: String(typeof d.code === 'object' ? d.code.value : d.code) } : {}),
      })),
    }));
}

function toRange(r: vscode.Range): TextRange {
  return { startLine: r.start.line, startCharacter: r.start.character, endLine: r.end.line, endCharacter: r.end.character };
}
