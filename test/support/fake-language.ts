/**
 * The unit-test host's Language group: a scripted language server (the test says what each query
 * answers and sees what was asked) and multi-file reviews the test holds open until it accepts
 * (with each file's final text) or rejects them.
 */
import type {
  CallInfo, ChangeReviewOutcome, ChangeReviewRequest, CodeActionInfo, LocationQuery, SourceLocation, SourcePosition, SymbolInfo, TextRange, WorkspaceChange,
} from '../../src/core/host';

/** A review the test decides: `accept` takes each file's final text (default: as proposed). */
export interface HeldChangeReview {
  request: ChangeReviewRequest;
  signal: AbortSignal;
  accept(contents?: string[], reason?: string): void;
  reject(reason?: string): void;
}

export interface LanguageQuery {
  op: string;
  path?: string;
  position?: SourcePosition;
  query?: string;
}

export class FakeLanguage {
  readonly asked: LanguageQuery[] = [];
  /** What each location query answers. */
  locationsOf: (query: LocationQuery, absPath: string, position: SourcePosition) => SourceLocation[] = () => [];
  hoverTexts: string[] = [];
  outline = new Map<string, SymbolInfo[]>();
  workspaceSymbolList: SymbolInfo[] = [];
  calls: { symbol: SymbolInfo; calls: CallInfo[] } | undefined;
  /** What a rename proposes, or the reason it cannot be done. */
  rename: (absPath: string, position: SourcePosition, newName: string) => WorkspaceChange = () => ({ files: [], fileOperations: 0 });
  actions: CodeActionInfo[] = [];
  /** Each `writeDocuments` call's files (FakeHost writes them through the catalog). */
  readonly writes: { path: string; text: string }[][] = [];
  readonly reviews: HeldChangeReview[] = [];
  private waiters: ((r: HeldChangeReview) => void)[] = [];
  private handedOut = 0;

  async locations(query: LocationQuery, absPath: string, position: SourcePosition): Promise<SourceLocation[]> {
    this.asked.push({ op: query, path: absPath, position });
    return this.locationsOf(query, absPath, position);
  }

  async hover(absPath: string, position: SourcePosition): Promise<string[]> {
    this.asked.push({ op: 'hover', path: absPath, position });
    return this.hoverTexts;
  }

  async documentSymbols(absPath: string): Promise<SymbolInfo[]> {
    this.asked.push({ op: 'documentSymbols', path: absPath });
    return this.outline.get(absPath) ?? [];
  }

  async workspaceSymbols(query: string): Promise<SymbolInfo[]> {
    this.asked.push({ op: 'workspaceSymbols', query });
    return this.workspaceSymbolList;
  }

  async callHierarchy(absPath: string, position: SourcePosition): Promise<{ symbol: SymbolInfo; calls: CallInfo[] } | undefined> {
    this.asked.push({ op: 'callHierarchy', path: absPath, position });
    return this.calls;
  }

  async renameEdits(absPath: string, position: SourcePosition, newName: string): Promise<WorkspaceChange> {
    this.asked.push({ op: 'rename', path: absPath, position, query: newName });
    return this.rename(absPath, position, newName);
  }

  async codeActions(absPath: string, range: TextRange): Promise<CodeActionInfo[]> {
    this.asked.push({ op: 'codeActions', path: absPath, position: { line: range.startLine, character: range.startCharacter } });
    return this.actions;
  }

  reviewChanges(request: ChangeReviewRequest, signal: AbortSignal): Promise<ChangeReviewOutcome> {
    return new Promise((resolve) => {
      let done = false;
      const finish = (outcome: ChangeReviewOutcome) => {
        if (!done) resolve(outcome);
        done = true;
      };
      const held: HeldChangeReview = {
        request,
        signal,
        accept: (contents, reason) => finish({ decision: 'accepted', contents: contents ?? request.files.map((f) => f.proposed), ...(reason ? { reason } : {}) }),
        reject: (reason) => finish({ decision: 'rejected', ...(reason ? { reason } : {}) }),
      };
      signal.addEventListener('abort', () => finish({ decision: 'rejected' }), { once: true });
      this.reviews.push(held);
      const waiter = this.waiters.shift();
      if (waiter) {
        this.handedOut++;
        waiter(held);
      }
    });
  }

  /** The next review not yet handed out (already open, or the next to open). */
  nextReview(): Promise<HeldChangeReview> {
    if (this.handedOut < this.reviews.length) return Promise.resolve(this.reviews[this.handedOut++]);
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}

/** A location in a file, zero-based, one line long. */
export function at(path: string, line: number, character: number, length = 1): SourceLocation {
  return { path, uri: `file://${path}`, range: { startLine: line, startCharacter: character, endLine: line, endCharacter: character + length } };
}
