import * as assert from 'node:assert/strict';
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import type { TextSearchQuery } from '../../../../src/core/host';
import { ErrorCode, isCodedError } from '../../../../src/protocol';
import { ripgrepArguments, ripgrepCandidates, runRipgrep } from '../../../../src/tools/search/ripgrep';
import { clipAround, MAX_LINE_CHARS } from '../../../../src/tools/support/format';
import { localRipgrep } from '../../../support/fake-search';

describe('ripgrep runner', () => {
  let root: string;
  const rg = localRipgrep();
  const query = (over: Partial<TextSearchQuery>): TextSearchQuery => ({
    root, pattern: 'x', isRegex: false, caseSensitive: false, wholeWord: false, includes: [], excludes: [], excludesIgnoringCase: [],
    useIgnoreFiles: true, contextLines: 0, maxMatches: 50, timeoutMs: 10_000, ...over,
  });
  const never = new AbortController().signal;

  beforeEach(async () => {
    root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'client-tools-rg-')));
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it('every value is joined to its flag and the folder is ".", so nothing a model sends is read as a flag; no backtracking engine is ever named', () => {
    const args = ripgrepArguments(query({ pattern: '--pre=/bin/sh', includes: ['--follow'], excludes: ['-P'], excludesIgnoringCase: ['.env'] }));
    assert.deepEqual(args.slice(-6), ['--glob=--follow', '--glob=!-P', '--iglob=!.env', '--regexp=--pre=/bin/sh', '--', '.']);
    for (const a of args) assert.ok(!/^(-P|--pcre2|--engine|--follow|-L|--pre|--search-zip|-z)(=|$)/.test(a), a);
    assert.ok(args.includes('--no-config'));
  });

  it('a line longer than it keeps is reported by its number and length, not its text; the rest of the output still parses', async () => {
    await writeFile(path.join(root, 'min.js'), `${'a'.repeat(1_000_000)}NEEDLE${'b'.repeat(100)}\nshort NEEDLE\n`);
    const out = await runRipgrep(rg, query({ pattern: 'NEEDLE' }), never);
    assert.equal(out.complete, true);
    assert.equal(out.matchingLines, 2);
    assert.deepEqual(out.hits.map((h) => [path.basename(h.path), h.line, h.text === undefined, h.column]), [['min.js', 1, true, undefined], ['min.js', 2, false, 7]]);
    assert.ok((out.hits[0].length ?? 0) > 1_000_000);
  });

  it('a long line that is kept is clipped around the match', () => {
    const line = `${'x'.repeat(5000)}MATCH${'y'.repeat(5000)}`;
    const clipped = clipAround(line, 5000);
    assert.ok(clipped.includes('MATCH'));
    assert.ok(clipped.length <= MAX_LINE_CHARS + 2);
  });

  it('stops at its time limit and says the result is incomplete', async () => {
    await writeFile(path.join(root, 'big.txt'), 'line with x\n'.repeat(400_000));
    const out = await runRipgrep(rg, query({ timeoutMs: 1 }), never);
    assert.equal(out.complete, false);
    assert.equal(out.stoppedBy, 'time');
  });

  it('cancellation kills the search and rejects with CANCELLED', async () => {
    await writeFile(path.join(root, 'a.txt'), 'x\n');
    const ac = new AbortController();
    ac.abort();
    await assert.rejects(runRipgrep(rg, query({}), ac.signal), (e: unknown) => isCodedError(e) && e.code === ErrorCode.Cancelled);
  });

  it('finds VS Code\'s ripgrep in both layouts: @vscode/ripgrep (and its .asar.unpacked copy) and @vscode/ripgrep-universal', () => {
    const c = ripgrepCandidates('/app', 'linux', 'x64');
    assert.deepEqual(c, [
      '/app/node_modules/@vscode/ripgrep/bin/rg',
      '/app/node_modules/@vscode/ripgrep-universal/bin/linux-x64/rg',
      '/app/node_modules.asar.unpacked/@vscode/ripgrep/bin/rg',
      '/app/node_modules.asar.unpacked/@vscode/ripgrep-universal/bin/linux-x64/rg',
    ]);
    assert.equal(ripgrepCandidates('C:/app', 'win32', 'arm64')[1].endsWith(path.join('win32-arm64', 'rg.exe')), true);
  });
});
