/**
 * A rogue backend (or a model steered by what it read) aims the Search group at what it must not
 * reach: a regular expression built to backtrack, globs and folders that lead out of the
 * workspace, values that look like ripgrep flags, and the secrets next to the workspace (a
 * protected `.env`, links to it and out of the workspace). The search must stay linear, refuse
 * escapes before ripgrep runs, and never return a secret.
 */
import * as assert from 'node:assert/strict';
import { ErrorCode, type ClientToolInvokeResponse } from '../../src/protocol';
import { searchToolGroup } from '../../src/tools/search/group';
import { assertNoLeak, assertRefused, CoreRig, SECRET } from './support/core-rig';

function json<T = Record<string, unknown>>(r: ClientToolInvokeResponse): T {
  assert.equal(r.success, true, `${r.errorCode}: ${r.errorMessage}`);
  const item = r.content[0];
  assert.ok(item && item.type === 'json');
  return item.value as T;
}

describe('rogue backend: the Search group', () => {
  let rig: CoreRig;
  let sockets: number;

  beforeEach(async () => {
    rig = await CoreRig.start({
      files: {
        'pathological.txt': `${'a'.repeat(200_000)}!\n`,
        'flags.txt': 'this line says --pre=/bin/sh and --files\n',
      },
    });
    const search = searchToolGroup();
    rig.core.registry.register(search.group, search.tools);
    rig.host.answerPrompts('allow');
    await rig.connect();
    sockets = rig.backend.sockets.length;
  });
  afterEach(() => rig.dispose());

  it('T-SEARCH-01 a backtracking regex over a long line completes (linear engine) while the editor keeps answering', async () => {
    const searching = rig.backend.call('SearchText', { query: '(a+)+$', isRegex: true });
    // The search runs in ripgrep, not on the extension's thread: another call is answered meanwhile.
    await rig.assertHealthy(sockets);
    const v = json<{ matches: unknown[]; complete: boolean }>(await searching);
    assert.equal(v.complete, true, 'the search hit its time limit: the pattern backtracked');
    assert.equal(v.matches.length, 0);
    const nested = json<{ matches: { location: string }[]; complete: boolean }>(await rig.backend.call('SearchText', { query: '^(a|aa)+!$', isRegex: true }));
    assert.equal(nested.complete, true);
    // The line is longer than a result keeps: it is named by its number, without its text.
    assert.deepEqual(nested.matches.map((m) => m.location), ['pathological.txt:1']);
  });

  it('T-SEARCH-02 globs and folders that lead out of the workspace are refused before ripgrep runs', async () => {
    const refused: [Record<string, unknown>, ErrorCode][] = [
      [{ query: 'x', include: ['../outside/**'] }, ErrorCode.InvalidArguments],
      [{ query: 'x', include: ['src/../../outside/*'] }, ErrorCode.InvalidArguments],
      [{ query: 'x', include: ['/etc/**'] }, ErrorCode.InvalidArguments],
      [{ query: 'x', exclude: ['C:/Windows/**'] }, ErrorCode.InvalidArguments],
      [{ query: 'x', include: ['!**/.env'] }, ErrorCode.InvalidArguments],
      [{ query: 'x', path: '../outside' }, ErrorCode.PathOutsideWorkspace],
      [{ query: 'x', path: 'out-dir' }, ErrorCode.PathOutsideWorkspace],
      [{ query: 'x', path: rig.root }, ErrorCode.PathOutsideWorkspace],
    ];
    for (const [args, code] of refused) assertRefused(await rig.backend.call('SearchText', args), code);
    assertRefused(await rig.backend.call('ListDirectory', { path: 'out-dir' }), ErrorCode.PathOutsideWorkspace);
    assertRefused(await rig.backend.call('ListDirectory', { exclude: ['../x'] }), ErrorCode.InvalidArguments);
    assert.deepEqual(rig.host.search.queries, [], 'ripgrep ran for a refused search');
    await rig.assertHealthy(sockets);
  });

  it('T-SEARCH-03 the secret comes back from no search: a protected .env, a link to it, links out of the workspace, settings and ignore files off', async () => {
    for (const args of [
      { query: SECRET },
      { query: 'API_KEY', useExcludeSettings: false, useIgnoreFiles: false },
      { query: 'TOP-SECRET', include: ['**/.env', 'innocent.txt', 'secret-link', 'out-dir/**'] },
      { query: '.', isRegex: true, contextLines: 5, maxResults: 500 },
    ]) {
      const r = await rig.backend.call('SearchText', args);
      assertNoLeak(r);
      const v = json<{ matches: { location: string }[] }>(r);
      assert.ok(!v.matches.some((m) => /\.env|innocent|secret-link|out-dir/.test(m.location)), JSON.stringify(v.matches));
    }
    const listing = json<{ entries: { path: string; link?: true }[] }>(await rig.backend.call('ListDirectory', { depth: 3 }));
    assert.deepEqual(listing.entries.filter((e) => e.link).map((e) => e.path).sort(), ['innocent.txt', 'out-dir', 'secret-link']);
    assert.ok(!listing.entries.some((e) => e.path.startsWith('out-dir/')), 'a link out of the workspace was followed');
    assert.equal(rig.host.prompts.length, 0);
  });

  it('T-SEARCH-04 values that look like ripgrep flags are searched for as text, never run as flags', async () => {
    const v = json<{ matches: { location: string; text: string }[] }>(await rig.backend.call('SearchText', { query: '--pre=/bin/sh', include: ['--files', '*.txt'] }));
    assert.deepEqual(v.matches.map((m) => m.location), ['flags.txt:1:16']);
    const lookalike = json<{ matches: unknown[] }>(await rig.backend.call('SearchText', { query: '-P', caseSensitive: true, exclude: ['--follow'] }));
    assert.deepEqual(lookalike.matches, []);
    await rig.assertHealthy(sockets);
  });
});
