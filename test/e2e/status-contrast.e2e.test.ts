/**
 * Status words in the chat webview meet WCAG AA (4.5:1) in every built-in theme (issue 29, item 8):
 * the bundle and media/chat.css in real Chromium, each theme's real `--vscode-*` values
 * (test/e2e/support/builtin-themes.ts), a card in each status; the ratio is taken from each word's
 * computed colour against the background it is actually painted on (its ancestors' backgrounds
 * composited, alpha included).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { build } from 'esbuild';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CardStream } from '../../src/vscode/chat/cardStream';
import { chatHtml } from '../../src/vscode/chat/chatHtml';
import type { HostToWebview } from '../../src/protocol/webview';
import type { ChatAction } from '../../src/webview/state';
import { ev, record } from '../unit/webview/fixtures';
import { BUILTIN_THEMES } from './support/builtin-themes';

declare const window: { __posted: { type: string }[]; postMessage(message: unknown, targetOrigin: string): void };

const ROOT = path.resolve(__dirname, '../..');
const BUNDLE = path.join(ROOT, 'out/e2e/chat-contrast.js');
const AA_NORMAL_TEXT = 4.5;

type Rgba = [number, number, number, number];

function parseColour(css: string): Rgba {
  const m = /^rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)$/.exec(css);
  if (!m) throw new Error(`unparsed colour ${css}`);
  return [Number(m[1]), Number(m[2]), Number(m[3]), m[4] === undefined ? 1 : Number(m[4])];
}

/** `top` painted over the opaque `bottom`. */
function over(top: Rgba, bottom: Rgba): Rgba {
  const a = top[3];
  return [0, 1, 2].map((i) => top[i] * a + bottom[i] * (1 - a)).concat(1) as Rgba;
}

function luminance([r, g, b]: Rgba): number {
  const lin = (c: number) => (c / 255 <= 0.03928 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4);
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

function contrast(text: string, backgroundsInnerFirst: string[]): number {
  let bg: Rgba = [255, 255, 255, 1]; // the canvas under an unpainted page
  for (const layer of [...backgroundsInnerFirst].reverse()) bg = over(parseColour(layer), bg);
  const fg = over(parseColour(text), bg);
  const [hi, lo] = [luminance(fg), luminance(bg)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/** In the page (a string: tsx's helpers do not exist there): each status word, its colour and its ancestors' backgrounds. */
const READ_STATUS_WORDS = `(() => [...document.querySelectorAll('.tool-card .tool-status, .tool-card .card-details, .run-state')]
  .filter((el) => el.textContent.trim() !== '')
  .map((el) => {
    const backgrounds = [];
    for (let node = el; node; node = node.parentElement) backgrounds.push(getComputedStyle(node).backgroundColor);
    const card = el.closest('.tool-card');
    return { where: (card ? card.className.match(/status-[\\w-]+/)[0] + ' ' : '') + el.className, text: el.textContent.trim(), colour: getComputedStyle(el).color, backgrounds };
  }))()`;

function pageSetup(colors: Record<string, string>, bodyClass: string): string {
  return `(() => {
  window.__posted = [];
  window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__posted.push(JSON.parse(JSON.stringify(m))), getState: () => undefined, setState: () => {} });
  document.addEventListener('DOMContentLoaded', () => {
    for (const [k, v] of Object.entries(${JSON.stringify(colors)})) document.documentElement.style.setProperty(k, v);
    document.body.classList.add(${JSON.stringify(bodyClass)});
  });
})();`;
}

describe('status text contrast in the built-in themes (issue 29)', function () {
  this.timeout(90_000);
  let server: Server;
  let baseUrl: string;
  let browser: Browser;

  before(async () => {
    await build({ entryPoints: [path.join(ROOT, 'src/webview/main.ts')], outfile: BUNDLE, bundle: true, format: 'iife', platform: 'browser', target: 'es2022', logLevel: 'silent' });
    server = createServer((req, res) => {
      const files: Record<string, [string, () => string | Buffer]> = {
        '/': ['text/html; charset=utf-8', () => chatHtml({ cspSource: baseUrl, nonce: randomBytes(18).toString('base64'), scriptUri: `${baseUrl}/media/chat.js`, styleUri: `${baseUrl}/media/chat.css` })],
        '/media/chat.js': ['text/javascript; charset=utf-8', () => readFileSync(BUNDLE)],
        '/media/chat.css': ['text/css; charset=utf-8', () => readFileSync(path.join(ROOT, 'media/chat.css'))],
      };
      const file = files[req.url ?? '/'];
      res.writeHead(file ? 200 : 404, file ? { 'content-type': file[0], 'cache-control': 'no-store' } : {});
      res.end(file ? file[1]() : undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
    });
  });

  after(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  async function host(page: Page, ...messages: (HostToWebview | ChatAction)[]): Promise<void> {
    const cards = new CardStream();
    const viaHost = (m: HostToWebview | ChatAction): unknown[] => (m.type === 'runEvent' ? cards.runEvent(m.event) : m.type === 'callRecord' ? cards.record(m.record) : [m]);
    for (const m of messages.flatMap(viaHost)) await page.evaluate((msg) => window.postMessage(msg, '*'), m);
    await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))');
  }

  for (const [themeName, theme] of Object.entries(BUILTIN_THEMES)) {
    it(`every status word reaches ${AA_NORMAL_TEXT}:1 in ${themeName}`, async () => {
      const context = await browser.newContext({ viewport: { width: 420, height: 900 }, reducedMotion: 'reduce' });
      try {
        const page = await context.newPage();
        await page.addInitScript({ content: pageSetup(theme.colors, theme.bodyClass) });
        await page.goto(`${baseUrl}/`);
        await page.waitForFunction(() => window.__posted.some((m) => m.type === 'ready'));
        await host(page,
          ev.started(),
          record('r1', 'OpenFile', { arguments: { path: 'README.md' }, status: 'succeeded', durationMs: 4 }),
          record('r2', 'ReadFile', { arguments: { path: 'a.ts' }, status: 'failed', durationMs: 3, errorCode: 'NOT_FOUND', errorMessage: 'No file a.ts.' }),
          record('r3', 'DeleteFile', { arguments: { path: 'b.ts' }, status: 'awaiting-permission' }),
          record('r4', 'RunInTerminal', { arguments: { command: 'ls' }, status: 'running' }),
          record('r5', 'GetSelection', { status: 'cancelled', durationMs: 1 }),
          record('r6', 'WriteFile', { arguments: { path: 'c.ts' }, status: 'denied', durationMs: 9, permission: { decision: 'denied', via: 'user' }, errorCode: 'PERMISSION_DENIED', errorMessage: 'The user denied WriteFile.' }),
          { type: 'awaitingInput', open: true },
        );
        const words = await page.evaluate(READ_STATUS_WORDS) as { where: string; text: string; colour: string; backgrounds: string[] }[];
        const seen = words.map((w) => w.where.split(' ')[0]);
        for (const status of ['status-succeeded', 'status-failed', 'status-awaiting-permission', 'status-running', 'status-cancelled', 'status-denied', 'run-state']) {
          assert.ok(seen.includes(status), `no status word rendered for ${status}: ${JSON.stringify(words.map((w) => w.where))}`);
        }
        const ratios = words.map((w) => ({ ...w, ratio: Math.round(contrast(w.colour, w.backgrounds) * 100) / 100 }));
        console.log(`      ${themeName}: ${ratios.map((r) => `${r.text} ${r.ratio}`).join(', ')}`);
        const failing = ratios.filter((r) => r.ratio < AA_NORMAL_TEXT);
        assert.deepEqual(failing.map((r) => `${r.where} "${r.text}" ${r.colour} ${r.ratio}:1`), [], `status words under ${AA_NORMAL_TEXT}:1 in ${themeName}`);
      } finally {
        await context.close();
      }
    });
  }
});
