/**
 * SearchText's search, in plain Node: the ripgrep that VS Code ships, run with an argument list (no
 * shell), its JSON output read as it streams, bounded in time, in output and in memory.
 *
 * Why ripgrep and how it is held: its default regex engine is finite-automaton based, so a model's
 * pattern runs in time linear in the text searched (`(a+)+$` cannot backtrack). It is never given
 * `--pcre2` or `--engine`, which would switch to a backtracking engine for lookaround and
 * backreferences; those patterns fail to compile instead. `--no-config` keeps a
 * `RIPGREP_CONFIG_PATH` from adding flags, `--regex-size-limit` and `--dfa-size-limit` bound what
 * compiling a pattern may take, and every value goes in the same argument as its flag
 * (`--glob=-x`), so no value is read as a flag. Links are not followed. The JSON printer ignores
 * `--max-columns`, so a record longer than `MAX_RECORD_BYTES` (a minified file's one line) is not
 * kept: its line number is read from the stream and its text is reported as too long.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import * as path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { CodedError, ErrorCode } from '../../protocol';
import type { TextSearchHit, TextSearchOutcome, TextSearchQuery } from '../../core/host';
import { clipAround } from '../support/format';

/** Longest output record kept and parsed; a longer one is a line too long to show. */
export const MAX_RECORD_BYTES = 256 * 1024;
/** Output read in all; the search stops there and says it is incomplete. */
export const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;
/** Matching lines counted at most; the search stops there and says it is incomplete. */
export const MAX_COUNTED_LINES = 100_000;
/** What compiling a pattern may take (ripgrep's own limits, lowered). */
const REGEX_SIZE_LIMIT = '16M';
const STDERR_CHARS = 2000;

/**
 * ripgrep's arguments for a query: every value joined to its flag. It runs in the folder and
 * searches `.` (globs are matched relative to where it runs), so the paths it prints are relative.
 */
export function ripgrepArguments(query: TextSearchQuery): string[] {
  const args = [
    '--json',
    '--no-config',
    '--no-messages',
    '--hidden',
    '--no-ignore-parent',
    '--no-require-git',
    '--sort=path',
    `--regex-size-limit=${REGEX_SIZE_LIMIT}`,
    `--dfa-size-limit=${REGEX_SIZE_LIMIT}`,
    query.caseSensitive ? '--case-sensitive' : '--ignore-case',
  ];
  if (!query.isRegex) args.push('--fixed-strings');
  if (query.wholeWord) args.push('--word-regexp');
  if (!query.useIgnoreFiles) args.push('--no-ignore');
  if (query.contextLines > 0) args.push(`--context=${query.contextLines}`);
  for (const glob of query.includes) args.push(`--glob=${glob}`);
  for (const glob of query.excludes) args.push(`--glob=!${glob}`);
  for (const glob of query.excludesIgnoringCase) args.push(`--iglob=!${glob}`);
  args.push(`--regexp=${query.pattern}`, '--', '.');
  return args;
}

/** Runs one search. Rejects with INVALID_ARGUMENTS when ripgrep cannot compile the pattern or a glob, TOOL_FAILED when it cannot start. */
export function runRipgrep(rgPath: string, query: TextSearchQuery, signal: AbortSignal): Promise<TextSearchOutcome> {
  if (signal.aborted) return Promise.reject(new CodedError(ErrorCode.Cancelled, 'the call was cancelled'));
  return new Promise((resolve, reject) => {
    const child = spawn(rgPath, ripgrepArguments(query), { cwd: query.root, env: {}, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
    const reader = new RecordReader(query);
    let stderr = '';
    let stoppedBy: TextSearchOutcome['stoppedBy'];
    let settled = false;
    const stop = (why: NonNullable<TextSearchOutcome['stoppedBy']> | 'cancel') => {
      if (why !== 'cancel') stoppedBy ??= why;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => stop('time'), query.timeoutMs);
    const onAbort = () => stop('cancel');
    signal.addEventListener('abort', onAbort, { once: true });
    const finish = (outcome: () => TextSearchOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      if (signal.aborted) reject(new CodedError(ErrorCode.Cancelled, 'the call was cancelled'));
      else {
        try {
          resolve(outcome());
        } catch (e) {
          reject(e);
        }
      }
    };
    child.stdout.on('data', (chunk: Buffer) => {
      if (stoppedBy) return;
      reader.push(chunk);
      if (reader.bytes > MAX_OUTPUT_BYTES || reader.matchingLines >= MAX_COUNTED_LINES) stop('output');
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      if (stderr.length < STDERR_CHARS) stderr += d.slice(0, STDERR_CHARS - stderr.length);
    });
    child.once('error', (e) => finish(() => {
      throw new CodedError(ErrorCode.ToolFailed, `could not run the editor's ripgrep: ${e.message}`);
    }));
    child.once('close', (code) => finish(() => {
      // 2 with no summary: nothing was searched (the pattern or a glob did not compile).
      if (!stoppedBy && code === 2 && !reader.summarised) throw patternError(stderr);
      return { hits: reader.hits, matchingLines: reader.matchingLines, files: reader.files, complete: stoppedBy === undefined, ...(stoppedBy ? { stoppedBy } : {}) };
    }));
  });
}

function patternError(stderr: string): CodedError {
  const said = stderr.trim().replace(/^rg: /, '') || 'ripgrep refused the search';
  const hint = /look-?around|backreference/i.test(said) ? ' Lookaround and backreferences are not supported: the search runs in linear time.' : '';
  return new CodedError(ErrorCode.InvalidArguments, `query: ${said}${hint}`);
}

type RgText = { text: string } | { bytes: string };

interface RgRecord {
  type: string;
  data: {
    path?: RgText;
    lines?: RgText;
    line_number?: number;
    submatches?: { start: number }[];
  };
}

/**
 * ripgrep's JSON lines, read as they come: the first `maxMatches` matching lines kept with their
 * context, every other one counted. Memory is bounded by MAX_RECORD_BYTES plus what is kept.
 */
class RecordReader {
  readonly hits: TextSearchHit[] = [];
  matchingLines = 0;
  files = 0;
  bytes = 0;
  summarised = false;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Set while skipping a record too long to keep. */
  private overlong: { head: Buffer; bytes: number; tail: string; lineNumber?: number } | undefined;
  /** The latest hit, which context lines after it join, and context lines waiting for the next hit. */
  private last: { file: string; line: number; hit?: TextSearchHit } | undefined;
  private contextBefore: { file: string; line: number; text: string }[] = [];

  constructor(private readonly query: TextSearchQuery) {}

  push(chunk: Buffer): void {
    this.bytes += chunk.length;
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl >= 0; nl = chunk.indexOf(10, start)) {
      this.append(chunk.subarray(start, nl));
      this.endRecord();
      start = nl + 1;
    }
    if (start < chunk.length) this.append(chunk.subarray(start));
  }

  private append(part: Buffer): void {
    if (this.overlong) {
      this.scanOverlong(part);
      return;
    }
    this.pending.push(part);
    this.pendingBytes += part.length;
    if (this.pendingBytes <= MAX_RECORD_BYTES) return;
    const whole = Buffer.concat(this.pending);
    this.pending = [];
    this.pendingBytes = 0;
    this.overlong = { head: whole.subarray(0, 4096), bytes: 0, tail: '' };
    this.scanOverlong(whole);
  }

  /** `"line_number":` cannot occur inside a JSON string (its quotes would be escaped), so the first one in the raw bytes is the record's. */
  private scanOverlong(part: Buffer): void {
    const o = this.overlong!;
    o.bytes += part.length;
    if (o.lineNumber !== undefined) return;
    const window = o.tail + part.toString('latin1');
    const m = /"line_number":(\d+)[,}]/.exec(window);
    if (m) o.lineNumber = Number(m[1]);
    o.tail = window.slice(-32);
  }

  private endRecord(): void {
    if (this.overlong) {
      const o = this.overlong;
      this.overlong = undefined;
      this.overlongRecord(o.head.toString('utf8'), o.bytes, o.lineNumber);
      return;
    }
    if (this.pendingBytes === 0) return;
    const text = Buffer.concat(this.pending).toString('utf8');
    this.pending = [];
    this.pendingBytes = 0;
    let record: RgRecord;
    try {
      record = JSON.parse(text) as RgRecord;
    } catch {
      return;
    }
    this.record(record);
  }

  private record(r: RgRecord): void {
    switch (r.type) {
      case 'begin':
        this.files++;
        this.last = undefined;
        this.contextBefore = [];
        return;
      case 'summary':
        this.summarised = true;
        return;
      case 'context':
        this.context(decode(r.data.path), r.data.line_number ?? 0, decode(r.data.lines));
        return;
      case 'match': {
        const line = decode(r.data.lines);
        const firstByte = r.data.submatches?.[0]?.start ?? 0;
        const column = Buffer.from(line, 'utf8').subarray(0, firstByte).toString('utf8').length + 1;
        this.match(decode(r.data.path), r.data.line_number ?? 0, { text: clipAround(stripEol(line), column - 1), column });
        return;
      }
      default:
    }
  }

  /** A record too long to keep: a match whose line is reported by number and length only. */
  private overlongRecord(head: string, bytes: number, lineNumber: number | undefined): void {
    if (!head.startsWith('{"type":"match"')) return;
    const quoted = /^\{"type":"match","data":\{"path":\{"text":("(?:[^"\\]|\\.)*")\}/.exec(head)?.[1];
    if (quoted === undefined || lineNumber === undefined) return;
    this.match(JSON.parse(quoted) as string, lineNumber, { length: bytes });
  }

  private match(relative: string, line: number, shown: { text: string; column: number } | { length: number }): void {
    this.matchingLines++;
    const file = path.join(this.query.root, relative);
    if (this.hits.length >= this.query.maxMatches) {
      this.last = { file, line };
      return;
    }
    const before = this.contextBefore.filter((c) => c.file === file && c.line >= line - this.query.contextLines).map((c) => c.text);
    const hit: TextSearchHit = { path: file, line, ...shown, before, after: [] };
    this.hits.push(hit);
    this.last = { file, line, hit };
    this.contextBefore = [];
  }

  private context(relative: string, line: number, text: string): void {
    const file = path.join(this.query.root, relative);
    const shown = clipAround(stripEol(text), 0);
    const last = this.last;
    if (last?.hit && last.file === file && line <= last.line + this.query.contextLines) {
      (last.hit.after as string[]).push(shown);
      return;
    }
    this.contextBefore.push({ file, line, text: shown });
    if (this.contextBefore.length > this.query.contextLines) this.contextBefore.shift();
  }
}

function decode(t: RgText | undefined): string {
  if (!t) return '';
  return 'text' in t ? t.text : new StringDecoder('utf8').end(Buffer.from(t.bytes, 'base64'));
}

function stripEol(line: string): string {
  return line.replace(/\r?\n$/, '');
}

/**
 * Where VS Code keeps its ripgrep below `vscode.env.appRoot`: `@vscode/ripgrep` (up to 1.1xx; in
 * `node_modules.asar.unpacked` in desktop builds) or, in newer builds, `@vscode/ripgrep-universal`
 * with one binary per platform.
 */
export function ripgrepCandidates(appRoot: string, platform: string = process.platform, arch: string = process.arch): string[] {
  const exe = platform === 'win32' ? 'rg.exe' : 'rg';
  return ['node_modules', 'node_modules.asar.unpacked'].flatMap((modules) => [
    path.join(appRoot, modules, '@vscode', 'ripgrep', 'bin', exe),
    path.join(appRoot, modules, '@vscode', 'ripgrep-universal', 'bin', `${platform}-${arch}`, exe),
  ]);
}

/** The first candidate that is an executable file, or undefined. */
export async function findRipgrep(appRoot: string): Promise<string | undefined> {
  for (const candidate of ripgrepCandidates(appRoot)) {
    if (await access(candidate, constants.X_OK).then(() => true, () => false)) return candidate;
  }
  return undefined;
}
