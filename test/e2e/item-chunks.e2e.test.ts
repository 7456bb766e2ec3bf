/**
 * src/webview/itemChunks.ts in real Chromium: the transcript's items in groups, placed the way
 * ChatView.renderItems places them (remove what went, then walk the new order, moving or inserting
 * what is not where it belongs). Random edits of a list (items gone, new ones at any place, items
 * rebuilt in place, the list cleared) must always leave the items in the DOM in the list's order,
 * with no empty group and no item outside a group, and move no item that stayed where it was.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { build } from 'esbuild';
import { chromium, type Browser, type Page } from 'playwright-core';

const ROOT = path.resolve(__dirname, '../..');

// Browser globals used inside page callbacks (the root tsconfig has no DOM lib).
interface Harness {
  /** Applies one edit and returns what the page then holds. */
  step(seed: number, perChunk: number): { expected: string[]; shown: string[]; groups: number[]; stray: number; placed: number; fresh: number; moves: boolean };
  /** Appends `n` items to a new list grouped by `perChunk`; the groups' sizes. */
  append(n: number, perChunk: number): number[];
}
declare const window: { __harness: Harness };

/** Runs in the page: the items are <i id="…">, the model is the list of ids in order. */
const HARNESS = `
const list = document.createElement('div');
list.className = 'items';
document.body.append(list);
let model = [];
let next = 0;
let chunks;
let chunksFor = -1;
const byId = new Map();
const watch = new MutationObserver(() => {});
watch.observe(list, { childList: true, subtree: true });
function rnd(seed) { let s = seed >>> 0; return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32); }
window.__harness = {
  step(seed, perChunk) {
    if (chunksFor !== perChunk) {
      chunks = new ItemChunks(list, perChunk);
      chunksFor = perChunk;
      chunks.clear();
      model = [];
      byId.clear();
    }
    const r = rnd(seed);
    const op = r();
    const moves = op >= 0.85;
    let wanted = model.slice();
    if (op < 0.03) {
      chunks.clear();
      byId.clear();
      wanted = [];
    } else if (op < 0.4) {
      // Appends, as a streaming run does (sometimes many, as a thread opening does).
      const n = r() < 0.2 ? 1 + Math.floor(r() * 80) : 1 + Math.floor(r() * 3);
      for (let i = 0; i < n; i++) wanted.push('n' + next++);
    } else if (op < 0.55) {
      // The oldest go (the view's bound), or the newest (a rewind).
      const n = Math.floor(r() * Math.min(40, wanted.length + 1));
      wanted = r() < 0.5 ? wanted.slice(n) : wanted.slice(0, wanted.length - n);
    } else if (op < 0.7) {
      // Some go from anywhere.
      wanted = wanted.filter(() => r() > 0.15);
    } else if (op < 0.85) {
      // New items in the middle (a card recorded after later items arrived).
      const n = 1 + Math.floor(r() * 4);
      for (let i = 0; i < n; i++) wanted.splice(Math.floor(r() * (wanted.length + 1)), 0, 'n' + next++);
    } else {
      // An item moves (rebuilt elsewhere in the order).
      if (wanted.length > 1) {
        const [id] = wanted.splice(Math.floor(r() * wanted.length), 1);
        wanted.splice(Math.floor(r() * (wanted.length + 1)), 0, id);
      }
    }
    // Items rebuilt in place (a changed item of another kind gets a new element where the old one was).
    const rebuilt = new Map();
    for (const id of wanted) if (byId.has(id) && r() < 0.05) rebuilt.set(id, byId.get(id));
    // What renderItems does.
    const keep = new Set(wanted);
    for (const [id, el] of byId) if (!keep.has(id)) { chunks.remove(el); byId.delete(id); }
    watch.takeRecords();
    let fresh = 0;
    let ref = chunks.first();
    for (const id of wanted) {
      const before = byId.get(id);
      let el = before;
      if (!el || rebuilt.has(id)) {
        fresh++;
        el = document.createElement('i');
        el.id = id;
        if (before) before.replaceWith(el);
        byId.set(id, el);
      }
      if (el === ref || before === ref) ref = chunks.next(el);
      else chunks.insertBefore(el, ref);
    }
    model = wanted;
    // Items put into the DOM (a move counts too): only the new ones, unless an item moved.
    const placed = watch.takeRecords().flatMap((m) => [...m.addedNodes]).filter((n) => n.nodeName === 'I').length;
    const shown = [...list.querySelectorAll('i')].map((el) => el.id);
    const groups = perChunk === 0 ? [] : [...list.children].map((g) => g.children.length);
    const stray = perChunk === 0 ? 0 : [...list.children].filter((g) => g.className !== 'item-chunk').length;
    return { expected: wanted, shown, groups, stray, placed, fresh, moves };
  },
  append(n, perChunk) {
    const other = document.createElement('div');
    document.body.append(other);
    const grouped = new ItemChunks(other, perChunk);
    for (let i = 0; i < n; i++) grouped.insertBefore(document.createElement('i'), null);
    return [...other.children].map((g) => g.children.length);
  },
};`;

describe('ItemChunks: the transcript\'s item groups (Chromium)', function () {
  this.timeout(60_000);
  let browser: Browser;
  let page: Page;

  before(async () => {
    const bundle = await build({
      stdin: { contents: "import { ItemChunks } from './src/webview/itemChunks';\nwindow.ItemChunks = ItemChunks;", resolveDir: ROOT, loader: 'ts' },
      bundle: true, format: 'iife', platform: 'browser', target: 'es2022', write: false, logLevel: 'silent',
    });
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
    page = await browser.newPage();
    await page.setContent('<!doctype html><body></body>');
    await page.addScriptTag({ content: bundle.outputFiles[0].text });
    await page.addScriptTag({ content: HARNESS });
  });

  after(async () => {
    await browser?.close();
  });

  for (const perChunk of [25, 3, 0]) {
    it(`keeps the items in the list's order through 600 random edits (${perChunk === 0 ? 'no groups' : `groups of ${perChunk}`})`, async () => {
      let biggest = 0;
      for (let seed = 1; seed <= 600; seed++) {
        const { expected, shown, groups, stray, placed, fresh, moves } = await page.evaluate(([s, n]) => window.__harness.step(s, n), [seed * 7919 + perChunk, perChunk] as const);
        assert.deepEqual(shown, expected, `after edit ${seed}`);
        assert.equal(stray, 0, `after edit ${seed}: something other than a group in the list`);
        assert.ok(groups.every((size) => size > 0), `after edit ${seed}: an empty group was left (${groups.join(',')})`);
        if (!moves) assert.equal(placed, fresh, `after edit ${seed}: items that stayed were moved`);
        biggest = Math.max(biggest, expected.length);
      }
      assert.ok(biggest > 100, `the edits reached a list of ${biggest} items`);
    });
  }

  it('appends into the last group until it is full, then starts a new one', async () => {
    assert.deepEqual(await page.evaluate(() => window.__harness.append(60, 25)), [25, 25, 10]);
  });
});
