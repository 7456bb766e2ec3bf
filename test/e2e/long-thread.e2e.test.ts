/**
 * A long thread in the chat webview, in real Chromium (the bundle, page and CSP the host ships, a
 * stubbed `acquireVsCodeApi`, as in chat-webview.e2e.test.ts): what the user cannot see is left to
 * the browser or built later (src/webview/virtualise.ts), and comes back as soon as it is seen.
 * The thread is test/support/long-thread.ts's: 500 turns, 200 cards, every tenth result 1 MiB.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { build } from 'esbuild';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { chatHtml } from '../../src/vscode/chat/chatHtml';
import type { ChatState, ToolItem } from '../../src/webview/state';
import { LONG_THREAD_ID, longThread } from '../support/long-thread';
import { ITEM_SELECTOR, ITEMS_PER_CHUNK } from '../../src/webview/chunkNames';

// Browser globals used inside page callbacks (the root tsconfig has no DOM lib).
interface StubWindow {
  __posted: { type: string }[];
  postMessage(message: unknown, targetOrigin: string): void;
}
interface PageElement {
  textContent: string | null;
  scrollHeight: number;
  clientHeight: number;
  scrollTop: number;
  parentElement: PageElement | null;
  getBoundingClientRect(): { top: number; bottom: number };
  classList: { contains(name: string): boolean };
  querySelector(selector: string): PageElement | null;
  checkVisibility(options: { contentVisibilityAuto: boolean }): boolean;
  scrollIntoView(): void;
}
declare const window: StubWindow;
declare const document: { querySelector(selector: string): PageElement | null; querySelectorAll(selector: string): PageElement[] };
declare function getComputedStyle(element: unknown): { contentVisibility: string; overflowY: string };
declare const innerHeight: number;
declare function requestAnimationFrame(callback: () => void): number;

const ROOT = path.resolve(__dirname, '../..');
const BUNDLE = path.join(ROOT, 'out/e2e/chat-long-thread.js');

const STUB = `(() => {
  window.__posted = [];
  window.acquireVsCodeApi = () => ({
    postMessage: (m) => { window.__posted.push(JSON.parse(JSON.stringify(m))); },
    getState: () => undefined,
    setState: () => {},
  });
})();`;

describe('a long thread in the chat webview (Chromium)', function () {
  this.timeout(90_000);
  let server: Server;
  let baseUrl: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let pageErrors: string[];
  let thread: { state: ChatState; transcript: unknown };

  before(async () => {
    mkdirSync(path.dirname(BUNDLE), { recursive: true });
    await build({ entryPoints: [path.join(ROOT, 'src/webview/main.ts')], outfile: BUNDLE, bundle: true, format: 'iife', platform: 'browser', target: 'es2022', logLevel: 'silent' });
    thread = longThread();
    server = createServer((req, res) => {
      const send = (type: string, body: string | Buffer) => {
        res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' });
        res.end(body);
      };
      const url = req.url ?? '/';
      if (url === '/' || url === '/?off') {
        const html = chatHtml({ cspSource: baseUrl, nonce: randomBytes(18).toString('base64'), scriptUri: `${baseUrl}/media/chat.js`, styleUri: `${baseUrl}/media/chat.css` });
        send('text/html; charset=utf-8', url === '/?off' ? html.replace('<html lang="en">', '<html lang="en" data-chat-virtualise="off">') : html);
      } else if (url === '/media/chat.js') send('text/javascript; charset=utf-8', readFileSync(BUNDLE));
      else if (url === '/media/chat.css') send('text/css; charset=utf-8', readFileSync(path.join(ROOT, 'media/chat.css')));
      else {
        res.writeHead(404);
        res.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      headless: true,
      // Accessibility on, as when a screen reader runs (Chromium builds the full tree only then).
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage', '--force-renderer-accessibility'],
    });
  });

  after(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  /**
   * Loads the page and opens the long thread in it. `off`: virtualisation turned off (the bench's
   * baseline); `neverIdle`: the page gets no idle callbacks, as when it is busy.
   */
  async function openThread({ off = false, neverIdle = false } = {}): Promise<void> {
    context = await browser.newContext({ viewport: { width: 400, height: 800 } });
    page = await context.newPage();
    pageErrors = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.addInitScript({ content: STUB });
    if (neverIdle) await page.addInitScript({ content: 'window.requestIdleCallback = () => 0;' });
    await page.goto(off ? `${baseUrl}/?off` : `${baseUrl}/`);
    await page.waitForFunction(() => window.__posted.some((m) => m.type === 'ready'));
    await page.evaluate(([threadId, transcript]) => window.postMessage({ type: 'showThread', threadId, transcript }, '*'), [LONG_THREAD_ID, thread.transcript] as const);
    await page.waitForFunction(([selector, n]) => document.querySelectorAll(selector).length === n, [ITEM_SELECTOR, thread.state.items.length] as const);
    await frame();
  }

  const frame = () => page.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))));

  afterEach(async () => {
    await context?.close();
    assert.deepEqual(pageErrors, [], 'page errors');
  });

  /** The kept card with a long result (a 1 MiB one, as the view keeps it): its path, and a line of that result. */
  function largeCard(): { path: string; line: string } {
    const card = thread.state.items.find((it): it is ToolItem => it.kind === 'tool' && it.result.some((p) => p.kind === 'text' && p.text.length > 10_000));
    assert.ok(card, 'the thread keeps a card with a long result');
    const part = card.result[0];
    assert.equal(part.kind, 'text');
    return { path: card.argsSummary, line: part.text.split('\n')[1] };
  }

  it('opens at its end; an item out of view is not rendered until scrolled to, and stays in the DOM (find in page reaches it)', async () => {
    await openThread();
    const first = thread.state.items[0];
    assert.equal(first.kind, 'user');
    const state = () => page.evaluate(() => {
      const el = document.querySelector('.item-chunk:first-child > :first-child');
      if (!el?.parentElement) throw new Error('no first item');
      // The group's own box stays; what content-visibility skips is what is inside it.
      return { text: el.textContent ?? '', contentVisibility: getComputedStyle(el.parentElement).contentVisibility, rendered: el.checkVisibility({ contentVisibilityAuto: true }) };
    });
    const before = await state();
    assert.equal(before.contentVisibility, 'auto');
    assert.equal(before.rendered, false, 'the first item, far above the view, is skipped by the browser');
    assert.match(before.text, new RegExp(first.text.slice(0, 20)), 'its text is in the DOM all the same');
    const last = await page.evaluate(() => document.querySelector('.item-chunk:last-child > :last-child > *')?.checkVisibility({ contentVisibilityAuto: true }));
    assert.equal(last, true, 'the thread opens at its end, which is rendered');

    await page.evaluate(() => document.querySelector('.item-chunk:first-child > :first-child')?.scrollIntoView());
    await frame();
    assert.equal((await state()).rendered, true, 'scrolled to, it is rendered');
  });

  it('skips the thread a group of items at a time: a few dozen boxes for the browser to track, not one per item', async () => {
    await openThread();
    const boxes = await page.evaluate((selector) => {
      const autos = [...document.querySelectorAll('*')].filter((el) => getComputedStyle(el).contentVisibility === 'auto');
      const items = Array.from(document.querySelectorAll(selector));
      return { autos: autos.length, inAuto: items.filter((it) => autos.includes(it.parentElement as never)).length };
    }, ITEM_SELECTOR);
    const items = thread.state.items.length;
    // Every item but those of the last two groups (always laid out) is in a content-visibility: auto group.
    assert.ok(boxes.autos <= Math.ceil(items / ITEMS_PER_CHUNK), `${boxes.autos} content-visibility: auto boxes for ${items} items`);
    assert.ok(boxes.inAuto >= items - 2 * ITEMS_PER_CHUNK, `${boxes.inAuto} of ${items} items are in a skippable group`);
  });

  it('keeps the items it skips in the accessibility tree (a screen reader reaches them)', async () => {
    await openThread();
    assert.equal(await page.evaluate((selector) => document.querySelector(selector)?.checkVisibility({ contentVisibilityAuto: true }), ITEM_SELECTOR), false, 'the first turn is skipped');
    const cdp = await context.newCDPSession(page);
    const { nodes } = await cdp.send('Accessibility.getFullAXTree') as { nodes: { ignored: boolean; name?: { value?: unknown } }[] };
    const named = (text: RegExp) => nodes.some((n) => !n.ignored && typeof n.name?.value === 'string' && text.test(n.name.value));
    assert.ok(named(/Question 1: what does parse1 do/), 'the first question, far above the view, is in the tree');
    assert.ok(named(/Question 500: what does parse500 do/), 'so is the last one');
  });

  it('follows an answer streaming at the end while the user is at the bottom, and stays put once they scroll up', async () => {
    await openThread();
    const ref = { threadId: LONG_THREAD_ID, runId: 'run-live' };
    const stream = async (words: number) => {
      await page.evaluate(([r, n]) => {
        for (let i = 0; i < n; i++) window.postMessage({ type: 'runEvent', event: { type: 'textDelta', ...r, text: i % 8 === 7 ? '.\n\n' : ` word${i}` } }, '*');
      }, [ref, words] as const);
      await frame();
      await frame();
    };
    const view = () => page.evaluate(() => {
      const t = document.querySelector('.transcript');
      if (!t) throw new Error('no transcript');
      return { top: t.scrollTop, fromBottom: t.scrollHeight - t.scrollTop - t.clientHeight };
    });
    await page.evaluate((r) => window.postMessage({ type: 'runEvent', event: { type: 'runStarted', ...r, model: 'test-model' } }, '*'), ref);
    await stream(200);
    assert.ok((await view()).fromBottom < 2, 'at the bottom, the view follows the answer');
    const grown = (await view()).top;
    await stream(200);
    const followed = await view();
    assert.ok(followed.top > grown && followed.fromBottom < 2, `it keeps following (${grown} → ${followed.top})`);

    await page.evaluate(() => {
      const t = document.querySelector('.transcript');
      if (t) t.scrollTop -= 3000;
    });
    await frame();
    const up = await view();
    await stream(400);
    const after = await view();
    assert.equal(after.top, up.top, 'scrolled up, the view stays where the user put it');
    assert.ok(after.fromBottom > up.fromBottom, 'while the answer grows below it');

    await page.evaluate(() => {
      const t = document.querySelector('.transcript');
      if (t) t.scrollTop = t.scrollHeight;
    });
    await frame();
    await stream(200);
    assert.ok((await view()).fromBottom < 2, 'back at the bottom, it follows again');
  });

  it('keeps the whole thread: scrolled to the top, the first of the 500 turns is there and shown', async () => {
    await openThread();
    assert.equal(await page.locator('.msg.user').count(), 500);
    assert.equal(await page.locator('.tool-card').count(), 200);
    await page.evaluate(() => {
      // The transcript's scroller, scrolled all the way up as the user would.
      let scroller = document.querySelector('.items');
      while (scroller && !(scroller.scrollHeight > scroller.clientHeight && getComputedStyle(scroller).overflowY !== 'visible')) scroller = scroller.parentElement;
      if (!scroller) throw new Error('no scroller above the items');
      scroller.scrollTop = 0;
    });
    await frame();
    const top = await page.evaluate((selector) => {
      const el = document.querySelector(selector);
      const inside = el?.querySelector('*');
      if (!el || !inside) throw new Error('no first item');
      const box = el.getBoundingClientRect();
      return { text: el.textContent ?? '', rendered: inside.checkVisibility({ contentVisibilityAuto: true }), inView: box.bottom > 0 && box.top < innerHeight };
    }, ITEM_SELECTOR);
    assert.match(top.text, /Question 1: what does parse1 do/);
    assert.deepEqual([top.rendered, top.inView], [true, true], 'the first turn is on screen');
  });

  it('builds a closed card\'s long result only when the card is opened', async () => {
    await openThread();
    const { path: cardPath, line } = largeCard();
    const card = page.locator('.tool-card', { has: page.locator('.tool-args', { hasText: cardPath }) });
    assert.equal(await card.count(), 1);
    assert.equal(await card.getAttribute('open'), null, 'the card is closed');
    assert.doesNotMatch((await card.textContent()) ?? '', new RegExp(line.trim().slice(0, 30).replace(/[()]/g, '\\$&')), 'the result is not in the DOM');
    assert.equal(await card.locator('.card-body .section-label', { hasText: 'Arguments' }).count(), 1, 'the rest of the body is');

    await card.locator('summary').scrollIntoViewIfNeeded();
    await card.locator('summary').click();
    await frame();
    assert.equal(await card.getAttribute('open'), '');
    assert.match((await card.locator('.card-body pre.result-text').textContent()) ?? '', new RegExp(line.trim().slice(0, 30).replace(/[()]/g, '\\$&')), 'opened, the card shows its result');
  });

  it('shows answers far from the end as their text, and as markdown once they near the view', async () => {
    await openThread({ neverIdle: true });
    const firstAnswer = page.locator('.msg.answer').first();
    const body = firstAnswer.locator('.markdown');
    assert.equal(await body.evaluate((el) => (el as unknown as PageElement).classList.contains('markdown-pending')), true);
    assert.equal(await body.locator('pre code').count(), 0, 'not rendered yet');
    assert.match((await body.textContent()) ?? '', /```ts\nexport function parse\d+/, 'its text is there, findable');
    const lastAnswer = page.locator('.msg.answer').last().locator('.markdown');
    assert.equal(await lastAnswer.locator('pre code').count(), 1, 'the answers at the end are rendered at once');

    await firstAnswer.evaluate((el) => (el as unknown as PageElement).scrollIntoView());
    await page.waitForFunction(() => document.querySelector('.msg.answer .markdown pre code') !== null
      && !document.querySelector('.msg.answer .markdown')?.classList.contains('markdown-pending'));
    assert.equal(await body.locator('pre code').count(), 1, 'near the view, it is markdown');
    assert.equal(await body.locator('strong').count(), 1);
  });

  it('renders the rest of the answers in idle time', async () => {
    await openThread();
    await page.waitForFunction(() => document.querySelectorAll('.markdown-pending').length === 0);
    assert.equal(await page.locator('.msg.answer .markdown pre code').count(), thread.state.items.filter((it) => it.kind === 'answer').length);
  });

  it('with data-chat-virtualise="off" (the bench\'s baseline) builds everything at once', async () => {
    await openThread({ off: true });
    const { path: cardPath, line } = largeCard();
    const card = page.locator('.tool-card', { has: page.locator('.tool-args', { hasText: cardPath }) });
    assert.match((await card.textContent()) ?? '', new RegExp(line.trim().slice(0, 30).replace(/[()]/g, '\\$&')));
    assert.equal(await page.locator('.markdown-pending').count(), 0);
    assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector('.items > :first-child')).contentVisibility), 'visible');
    assert.equal(await page.locator('.item-chunk').count(), 0, 'the items are the list\'s own children, as before');
  });
});
