import * as assert from 'node:assert/strict';
import { link } from 'node:fs/promises';
import { ErrorCode, type ClientToolInvokeResponse } from '../../../../src/protocol';
import { SEARCH_GROUP, SEARCH_TOOLS } from '../../../../src/tools/search/group';
import { DispatchHarness } from '../../../support/dispatch-harness';
import { createTempWorkspace, type TempWorkspace } from '../../../support/fake-host';

interface Match {
  location: string;
  text: string;
  before?: string[];
  after?: string[];
}
interface Found {
  matches: Match[];
  matchingLines: number;
  files: number;
  more: number;
  complete: boolean;
  message?: string;
  leftOut?: string;
}

function json<T>(r: ClientToolInvokeResponse): T {
  assert.equal(r.success, true, `${r.errorCode}: ${r.errorMessage}`);
  const item = r.content[0];
  assert.ok(item && item.type === 'json');
  return item.value as T;
}

describe('SearchText', () => {
  let ws: TempWorkspace;
  let h: DispatchHarness;
  const search = async (args: Record<string, unknown>) => json<Found>(await h.call('SearchText', args));
  const locations = (f: Found) => f.matches.map((m) => m.location);

  beforeEach(async () => {
    ws = await createTempWorkspace(['ws'], {
      'src/a.ts': 'export const a = 1; // TODO one\nconst todoList = [];\n',
      'src/b.ts': 'line 1\nline 2\n  // TODO two\nline 4\nline 5\n',
      'src/é.ts': 'const café = "TODO unicode"; // TODO\n',
      'docs/readme.md': 'TODO in docs\n',
      'dist/out.js': 'TODO built\n',
      'by-setting/x.ts': 'TODO excluded by search.exclude\n',
      '.gitignore': 'dist/\n',
      '.env': 'TODO=secret\n',
    });
    ws.host.search.searchExclude = ['**/by-setting'];
    h = new DispatchHarness({ host: ws.host, group: SEARCH_GROUP, tools: SEARCH_TOOLS });
  });
  afterEach(async () => {
    h.dispose();
    await ws.dispose();
  });

  it('finds a literal case-insensitively, as path:line:column with the line, sorted by path; excludes, .gitignore and protected files left out', async () => {
    const f = await search({ query: 'todo' });
    assert.deepEqual(locations(f), ['docs/readme.md:1:1', 'src/a.ts:1:24', 'src/a.ts:2:7', 'src/b.ts:3:6', 'src/é.ts:1:15']);
    assert.equal(f.matches[3].text, '  // TODO two');
    assert.deepEqual([f.matchingLines, f.more, f.complete, f.files], [5, 0, true, 4]);
    assert.equal(f.message, undefined);
  });

  it('matches case and whole words when asked, and takes a regular expression', async () => {
    assert.deepEqual(locations(await search({ query: 'TODO', caseSensitive: true, include: ['src/**'] })), ['src/a.ts:1:24', 'src/b.ts:3:6', 'src/é.ts:1:15']);
    assert.deepEqual(locations(await search({ query: 'todo', wholeWord: true, include: ['src/*.ts'] })), ['src/a.ts:1:24', 'src/b.ts:3:6', 'src/é.ts:1:15']);
    assert.deepEqual(locations(await search({ query: String.raw`const \w+ = \[`, isRegex: true })), ['src/a.ts:2:1']);
    // Not a regex unless asked: the brackets are literal text.
    assert.deepEqual(locations(await search({ query: '[];' })), ['src/a.ts:2:18']);
  });

  it('include and exclude globs, and the settings and .gitignore switched off on request', async () => {
    assert.deepEqual(locations(await search({ query: 'TODO', include: ['**/*.md'] })), ['docs/readme.md:1:1']);
    assert.deepEqual(locations(await search({ query: 'TODO', exclude: ['src/**'] })), ['docs/readme.md:1:1']);
    const all = locations(await search({ query: 'TODO', useExcludeSettings: false, useIgnoreFiles: false, caseSensitive: true }));
    assert.ok(all.includes('dist/out.js:1:1') && all.includes('by-setting/x.ts:1:1'), all.join(', '));
    assert.ok(!all.some((l) => l.startsWith('.env')), 'a protected file was searched');
  });

  it('context lines come with each match', async () => {
    const f = await search({ query: 'TODO two', contextLines: 2 });
    assert.deepEqual(f.matches, [{ location: 'src/b.ts:3:6', text: '  // TODO two', before: ['line 1', 'line 2'], after: ['line 4', 'line 5'] }]);
  });

  it('caps the matches and says honestly how many more lines matched', async () => {
    await ws.write('many.txt', Array.from({ length: 300 }, (_, i) => `hit ${i}`).join('\n'));
    const f = await search({ query: 'hit', maxResults: 10 });
    assert.equal(f.matches.length, 10);
    assert.deepEqual([f.matchingLines, f.more, f.complete], [300, 290, true]);
    assert.match(f.message ?? '', /290 more matching lines not shown/);
  });

  it('searches one folder given by path, and refuses a file, a missing folder and a protected one', async () => {
    assert.deepEqual(locations(await search({ query: 'TODO', path: 'docs' })), ['docs/readme.md:1:1']);
    assert.equal((await h.call('SearchText', { query: 'x', path: 'src/a.ts' })).errorCode, ErrorCode.InvalidArguments);
    assert.equal((await h.call('SearchText', { query: 'x', path: 'nope' })).errorCode, ErrorCode.NotFound);
    await ws.write('.git/config', 'TODO\n');
    assert.equal((await h.call('SearchText', { query: 'TODO', path: '.git' })).errorCode, ErrorCode.PathProtected);
  });

  it('a hard-linked file (a secret may have another name) is left out and counted as left out', async () => {
    await link(ws.file('.env'), ws.file('innocent.txt'));
    const f = await search({ query: 'secret' });
    assert.deepEqual(f.matches, []);
    assert.match(f.leftOut ?? '', /1 matching line in protected files/);
  });

  it('a pattern ripgrep cannot run is INVALID_ARGUMENTS with its reason (lookaround is not supported)', async () => {
    const r = await h.call('SearchText', { query: '(?<=a)b', isRegex: true });
    assert.equal(r.errorCode, ErrorCode.InvalidArguments);
    assert.match(r.errorMessage ?? '', /look-?around/i);
    assert.match(r.errorMessage ?? '', /linear time/);
    assert.equal((await h.call('SearchText', { query: '(unclosed', isRegex: true })).errorCode, ErrorCode.InvalidArguments);
  });
});
