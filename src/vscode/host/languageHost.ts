/**
 * The Language group's part of `IdeHost` on the VS Code API (VsCodeIdeHost delegates here): the
 * language servers through VS Code's own `vscode.execute…Provider` commands, their answers turned
 * into plain data, and kept honest about timing: it notes when each document was opened or changed
 * and when diagnostics were reported for it, so that answers right after a change wait (bounded)
 * for the server to catch up (src/vscode/host/settle.ts) instead of reporting an empty or partial list.
 *
 * TypeScript's extension answers from a syntax-only server while its project loads: a definition
 * then leads to the import, references and workspace symbols miss other files, and its hover says
 * "(loading...)". So before asking about a document changed a moment ago, the hover of the
 * document's first symbol is asked until it no longer says so (bounded by the same window).
 */
import * as vscode from 'vscode';
import { CodedError, ErrorCode } from '../../protocol';
import type {
  CallInfo, CodeActionInfo, LocationQuery, SourceLocation, SourcePosition, SymbolInfo, TextRange, WorkspaceChange,
} from '../../core/host';
import { SETTLE_WINDOW_MS, settledAnswer, settledDiagnostics } from './settle';

const LOCATION_COMMANDS: Record<LocationQuery, string> = {
  definition: 'vscode.executeDefinitionProvider',
  typeDefinition: 'vscode.executeTypeDefinitionProvider',
  implementation: 'vscode.executeImplementationProvider',
  references: 'vscode.executeReferenceProvider',
};
/** Code actions whose edits are resolved in one request (VS Code's own cap on resolving). */
const RESOLVE_ACTIONS = 50;
/** What TypeScript's hover says while its project loads (its answers are then partial). */
const LOADING = '(loading...)';
/** Languages that have no diagnostics to wait for. */
const NO_DIAGNOSTICS = new Set(['plaintext', 'log']);
/** Source files whose language servers answer for the whole project once one file of it is loaded. */
const SOURCE_EXTENSIONS = ['ts', 'tsx', 'mts', 'cts', 'js', 'jsx', 'mjs', 'cjs', 'py', 'go', 'rs', 'java', 'cs', 'rb', 'php'];
const SOURCE_FILES = `**/*.{${SOURCE_EXTENSIONS.join(',')}}`;
const SOURCE_PATH = new RegExp(`\\.(${SOURCE_EXTENSIONS.join('|')})$`);

export class LanguageHost implements vscode.Disposable {
  /** When each open document was last opened or changed. */
  private readonly changed = new Map<string, number>();
  /** When diagnostics were last reported for an open document. */
  private readonly reported = new Map<string, number>();
  private readonly reports = new vscode.EventEmitter<string>();
  /** The change of each document after which its server was seen ready (no longer loading). */
  private readonly ready = new Map<string, number>();
  private readonly disposables: vscode.Disposable[];

  constructor() {
    this.disposables = [
      this.reports,
      vscode.workspace.onDidOpenTextDocument((d) => this.changed.set(d.uri.toString(), Date.now())),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.contentChanges.length > 0) this.changed.set(e.document.uri.toString(), Date.now());
      }),
      vscode.workspace.onDidCloseTextDocument((d) => {
        this.changed.delete(d.uri.toString());
        this.reported.delete(d.uri.toString());
        this.ready.delete(d.uri.toString());
      }),
      vscode.languages.onDidChangeDiagnostics((e) => {
        for (const uri of e.uris) {
          const key = uri.toString();
          if (!this.changed.has(key)) continue;
          this.reported.set(key, Date.now());
          this.reports.fire(key);
        }
      }),
    ];
  }

  async locations(query: LocationQuery, absPath: string, position: SourcePosition): Promise<SourceLocation[]> {
    const uri = await this.loaded(absPath);
    const found = await settledAnswer(
      async () => (await vscode.commands.executeCommand<(vscode.Location | vscode.LocationLink)[] | undefined>(LOCATION_COMMANDS[query], uri, toPosition(position))) ?? [],
      (l) => l.length === 0,
      this.changedAt(uri),
    );
    return found.map((l) => ('targetUri' in l ? location(l.targetUri, l.targetSelectionRange ?? l.targetRange) : location(l.uri, l.range)));
  }

  async hover(absPath: string, position: SourcePosition): Promise<string[]> {
    const uri = await this.loaded(absPath);
    const texts = await settledAnswer(() => hoverTexts(uri, toPosition(position)), (t) => t.length === 0 || loading(t), this.changedAt(uri));
    return texts;
  }

  async documentSymbols(absPath: string): Promise<SymbolInfo[]> {
    const uri = await this.loaded(absPath);
    const symbols = await settledAnswer(() => this.outline(uri), (s) => s.length === 0, this.changedAt(uri));
    return flatten(symbols, uri);
  }

  async workspaceSymbols(query: string): Promise<SymbolInfo[]> {
    let found = await this.workspaceSymbolsNow(query);
    // No source file loaded yet, so no language server runs ("find usages of greet" on a workspace
    // just opened found nothing): load one, which starts its server for the project, and ask again.
    if (found.length === 0 && !vscode.workspace.textDocuments.some((d) => d.uri.scheme === 'file' && SOURCE_PATH.test(d.uri.path))) {
      const [source] = await vscode.workspace.findFiles(SOURCE_FILES, '**/node_modules/**', 1);
      if (source) {
        await this.loaded(source.fsPath);
        found = await this.workspaceSymbolsNow(query);
      }
    }
    return found.map((s) => ({ name: s.name, kind: vscode.SymbolKind[s.kind], ...(s.containerName ? { container: s.containerName } : {}), location: location(s.location.uri, s.location.range) }));
  }

  private async workspaceSymbolsNow(query: string): Promise<vscode.SymbolInformation[]> {
    const latest = Math.max(0, ...this.changed.values());
    const recent = [...this.changed].find(([, at]) => at === latest)?.[0];
    if (recent) await this.serverReady(vscode.Uri.parse(recent));
    return settledAnswer(
      async () => (await vscode.commands.executeCommand<vscode.SymbolInformation[] | undefined>('vscode.executeWorkspaceSymbolProvider', query)) ?? [],
      (s) => s.length === 0,
      latest > 0 ? latest : undefined,
    );
  }

  async callHierarchy(absPath: string, position: SourcePosition, direction: 'incoming' | 'outgoing'): Promise<{ symbol: SymbolInfo; calls: CallInfo[] } | undefined> {
    const uri = await this.loaded(absPath);
    const items = await settledAnswer(
      async () => (await vscode.commands.executeCommand<vscode.CallHierarchyItem[] | undefined>('vscode.prepareCallHierarchy', uri, toPosition(position))) ?? [],
      (i) => i.length === 0,
      this.changedAt(uri),
    );
    const item = items[0];
    if (!item) return undefined;
    const calls: CallInfo[] = [];
    if (direction === 'incoming') {
      const incoming = (await vscode.commands.executeCommand<vscode.CallHierarchyIncomingCall[] | undefined>('vscode.provideIncomingCalls', item)) ?? [];
      for (const c of incoming) calls.push({ symbol: itemSymbol(c.from), callSites: c.fromRanges.map(toRange) });
    } else {
      const outgoing = (await vscode.commands.executeCommand<vscode.CallHierarchyOutgoingCall[] | undefined>('vscode.provideOutgoingCalls', item)) ?? [];
      for (const c of outgoing) calls.push({ symbol: itemSymbol(c.to), callSites: c.fromRanges.map(toRange) });
    }
    return { symbol: itemSymbol(item), calls };
  }

  async renameEdits(absPath: string, position: SourcePosition, newName: string): Promise<WorkspaceChange> {
    const uri = await this.loaded(absPath);
    let edit: vscode.WorkspaceEdit | undefined;
    try {
      edit = await vscode.commands.executeCommand<vscode.WorkspaceEdit | undefined>('vscode.executeDocumentRenameProvider', uri, toPosition(position), newName);
    } catch (e) {
      throw new CodedError(ErrorCode.ToolFailed, `the language server cannot rename there: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (!edit) throw new CodedError(ErrorCode.ToolFailed, 'no language server offers a rename there');
    return changeOf(edit);
  }

  async codeActions(absPath: string, range: TextRange, kind: string | undefined): Promise<CodeActionInfo[]> {
    const uri = await this.loaded(absPath);
    const vsRange = new vscode.Range(range.startLine, range.startCharacter, range.endLine, range.endCharacter);
    const actions = (await vscode.commands.executeCommand<(vscode.CodeAction | vscode.Command)[] | undefined>('vscode.executeCodeActionProvider', uri, vsRange, kind, RESOLVE_ACTIONS)) ?? [];
    return actions.map((a): CodeActionInfo => {
      if (isCommand(a)) return { title: a.title, runsCommand: true };
      return {
        title: a.title,
        ...(a.kind ? { kind: a.kind.value } : {}),
        ...(a.isPreferred ? { isPreferred: true } : {}),
        ...(a.disabled ? { disabled: a.disabled.reason } : {}),
        runsCommand: a.command !== undefined,
        ...(a.edit ? { change: changeOf(a.edit) } : {}),
      };
    });
  }

  /**
   * Waits (bounded) until diagnostics of a document opened or changed a moment ago can be taken as
   * settled; for every such document when `absPath` is undefined.
   */
  async settleDiagnostics(absPath?: string): Promise<void> {
    const docs = vscode.workspace.textDocuments.filter((d) => !NO_DIAGNOSTICS.has(d.languageId) && (absPath === undefined || (d.uri.scheme === 'file' && d.uri.fsPath === absPath)));
    await Promise.all(
      docs.map((d) => {
        const key = d.uri.toString();
        return settledDiagnostics({
          changedAt: this.changed.get(key),
          reportedAt: this.reported.get(key),
          onReport: (listener) => this.reports.event((k) => k === key && listener()),
          read: () => this.serverReady(d.uri),
        });
      }),
    );
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }

  /** The document loaded (servers answer for documents they were handed) and its server past loading; its URI. */
  private async loaded(absPath: string): Promise<vscode.Uri> {
    const uri = vscode.Uri.file(absPath);
    const key = uri.toString();
    if (!vscode.workspace.textDocuments.some((d) => d.uri.toString() === key)) {
      this.changed.set(key, Date.now());
      await vscode.workspace.openTextDocument(uri);
    }
    await this.serverReady(uri);
    return uri;
  }

  /** Within the settle window of a change: until the hover of the document's first symbol no longer says the server is loading. */
  private async serverReady(uri: vscode.Uri): Promise<void> {
    const key = uri.toString();
    const changedAt = this.changed.get(key);
    if (changedAt === undefined || this.ready.get(key) === changedAt || Date.now() >= changedAt + SETTLE_WINDOW_MS) return;
    const [first] = flatten(await this.outline(uri), uri);
    if (first) {
      const at = new vscode.Position(first.location.range.startLine, first.location.range.startCharacter);
      await settledAnswer(() => hoverTexts(uri, at), loading, changedAt);
    }
    this.ready.set(key, changedAt);
  }

  private changedAt(uri: vscode.Uri): number | undefined {
    return this.changed.get(uri.toString());
  }

  private async outline(uri: vscode.Uri): Promise<(vscode.DocumentSymbol | vscode.SymbolInformation)[]> {
    return (await vscode.commands.executeCommand<(vscode.DocumentSymbol | vscode.SymbolInformation)[] | undefined>('vscode.executeDocumentSymbolProvider', uri)) ?? [];
  }
}

function toPosition(p: SourcePosition): vscode.Position {
  return new vscode.Position(p.line, p.character);
}

function toRange(r: vscode.Range): TextRange {
  return { startLine: r.start.line, startCharacter: r.start.character, endLine: r.end.line, endCharacter: r.end.character };
}

function location(uri: vscode.Uri, range: vscode.Range): SourceLocation {
  return { ...(uri.scheme === 'file' ? { path: uri.fsPath } : {}), uri: uri.toString(), range: toRange(range) };
}

async function hoverTexts(uri: vscode.Uri, position: vscode.Position): Promise<string[]> {
  const hovers = (await vscode.commands.executeCommand<vscode.Hover[] | undefined>('vscode.executeHoverProvider', uri, position)) ?? [];
  return hovers.flatMap((h) => h.contents.map(markdownOf));
}

function loading(texts: readonly string[]): boolean {
  return texts.some((t) => t.includes(LOADING));
}

function markdownOf(c: vscode.MarkdownString | vscode.MarkedString): string {
  if (typeof c === 'string') return c;
  if ('language' in c) return `\`\`\`${c.language}\n${c.value}\n\`\`\``;
  return c.value;
}

/** A document outline depth first, whichever of the two shapes the server gave. */
function flatten(symbols: readonly (vscode.DocumentSymbol | vscode.SymbolInformation)[], uri: vscode.Uri): SymbolInfo[] {
  const out: SymbolInfo[] = [];
  const walk = (list: readonly vscode.DocumentSymbol[], depth: number, container: string | undefined) => {
    for (const s of [...list].sort((a, b) => a.range.start.compareTo(b.range.start))) {
      out.push({ name: s.name, kind: vscode.SymbolKind[s.kind], ...(s.detail ? { detail: s.detail } : {}), ...(container ? { container } : {}), location: location(uri, s.selectionRange), depth });
      walk(s.children, depth + 1, s.name);
    }
  };
  const documentSymbols = symbols.filter((s): s is vscode.DocumentSymbol => 'children' in s);
  if (documentSymbols.length > 0) walk(documentSymbols, 0, undefined);
  else {
    for (const s of symbols as vscode.SymbolInformation[]) {
      out.push({ name: s.name, kind: vscode.SymbolKind[s.kind], ...(s.containerName ? { container: s.containerName } : {}), location: location(s.location.uri, s.location.range), depth: 0 });
    }
  }
  return out;
}

function itemSymbol(item: vscode.CallHierarchyItem): SymbolInfo {
  return { name: item.name, kind: vscode.SymbolKind[item.kind], ...(item.detail ? { detail: item.detail } : {}), location: location(item.uri, item.selectionRange) };
}

/** A WorkspaceEdit as plain data: text edits per file, and how many resources it also creates, renames or deletes. */
function changeOf(edit: vscode.WorkspaceEdit): WorkspaceChange {
  const entries = edit.entries();
  return {
    files: entries.map(([uri, edits]) => ({
      ...(uri.scheme === 'file' ? { path: uri.fsPath } : {}),
      uri: uri.toString(),
      edits: edits.map((e) => ({ range: toRange(e.range), newText: e.newText })),
    })),
    fileOperations: Math.max(0, edit.size - entries.length),
  };
}

function isCommand(a: vscode.CodeAction | vscode.Command): a is vscode.Command {
  return typeof (a as vscode.Command).command === 'string';
}
