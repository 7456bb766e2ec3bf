/**
 * 14. Long threads in a real browser: the chat view opens a saved conversation of 500 turns with 200
 *     tool cards (every tenth with a 1 MiB result), then an answer streams into it at 100 tokens/s.
 *     Measured: time from the host's `showThread` to the first frame painted after the view built
 *     the thread; long main-thread tasks (PerformanceObserver `longtask`) and the longest gap between
 *     animation frames while the answer streams; the page's JS heap after a GC (CDP
 *     Runtime.getHeapUsage); elements and characters in the DOM.
 *
 *     The page is the shipped webview bundle (media/chat.js, media/chat.css) in the page and CSP the
 *     host ships (chatHtml), alone in headless Chromium with a stub `acquireVsCodeApi` that costs
 *     what VS Code's does (a structured clone per message, `JSON.stringify` per setState). Not the
 *     webview inside code-server: that would measure the same code with the workbench's own tasks
 *     on the same main thread, and take the shared VS Code lock for minutes.
 *
 *     Baselines in the same run: the same page with `<html data-chat-virtualise="off">`, which turns
 *     off what src/webview/virtualise.ts does, and the same stream into an empty chat (what the
 *     machine makes of the stream's own work: on 2 shared cores a task is stretched by whatever
 *     else runs); rounds alternate, medians reported.
 */
import * as fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { chromium, type Browser } from 'playwright-core';
import { chatHtml } from '../src/vscode/chat/chatHtml';
import { ITEM_SELECTOR } from '../src/webview/chunkNames';
import { LONG_THREAD, LONG_THREAD_ID, longThread } from '../test/support/long-thread';
import { BENCH_DIR } from './lib/paths';
import { median } from './lib/stats';

export const OPEN_TARGET_MS = 300;
export const STREAM_TASK_TARGET_MS = 50;
const TOKENS_PER_SECOND = 100;
const CHROMIUM = process.env.CLIENT_TOOLS_CHROMIUM ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'];

export interface ThreadRound {
  /** `showThread` posted → the first frame after the thread is in the DOM. */
  openMs: number;
  /** Main-thread tasks of 50 ms or more while the answer streamed. */
  longTasks: number;
  /** The longest of them; 0 when there was none. */
  longestTaskMs: number;
  /** The longest gap between two animation frames while the answer streamed. */
  longestFrameGapMs: number;
  /** JS heap after a GC, once the thread is open and after the stream. */
  heapOpenMB: number;
  heapStreamedMB: number;
  domElements: number;
  domChars: number;
}

export interface LongThreadsResult {
  turns: number;
  toolCards: number;
  largeResults: number;
  /** What reaches the view: the items its saved transcript keeps and the transcript's size. */
  items: number;
  itemCards: number;
  transcriptChars: number;
  streamSeconds: number;
  baseline: ThreadRound[];
  virtualised: ThreadRound[];
  /** The same stream into an empty chat: what this machine makes of the stream's own work. */
  emptyChat: ThreadRound[];
  medianBaseline: ThreadRound;
  medianVirtualised: ThreadRound;
  medianEmptyChat: ThreadRound;
}

// Browser globals used inside page callbacks (the bench's tsconfig has no DOM lib).
interface BenchWindow {
  __longTasks: number[];
  __thread: unknown;
  __open(expected: number): Promise<number>;
  __stream(seconds: number, tokensPerSecond: number): Promise<{ longTasks: number[]; longestFrameGapMs: number }>;
}
declare const window: BenchWindow;
declare const document: { getElementsByTagName(name: string): { length: number }; querySelectorAll(selector: string): { length: number }; body: { textContent: string | null } };

/** The stub webview API, the long-task log and the page's measuring functions, before the bundle runs. */
const PAGE_SETUP = `(() => {
  window.__longTasks = [];
  new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__longTasks.push(e.duration); }).observe({ type: 'longtask' });
  window.acquireVsCodeApi = () => ({
    // VS Code hands a posted message to the host as a structured clone, and a state as JSON text.
    postMessage: (m) => { structuredClone(m); },
    getState: () => undefined,
    setState: (s) => { JSON.stringify(s); },
  });
  const afterFrame = () => new Promise((resolve) => requestAnimationFrame(() => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => resolve();
    channel.port2.postMessage(0);
  }));
  window.__open = async (expected) => {
    const t0 = performance.now();
    window.postMessage({ type: 'showThread', threadId: ${JSON.stringify(LONG_THREAD_ID)}, transcript: window.__thread }, '*');
    for (;;) {
      await afterFrame();
      if (document.querySelectorAll(${JSON.stringify(ITEM_SELECTOR)}).length >= expected) return performance.now() - t0;
      if (performance.now() - t0 > 30000) throw new Error('the thread did not open within 30 s');
    }
  };
  window.__stream = async (seconds, tokensPerSecond) => {
    const ref = { threadId: ${JSON.stringify(LONG_THREAD_ID)}, runId: 'run-live' };
    window.postMessage({ type: 'runEvent', event: { type: 'runStarted', ...ref, model: 'bench-model' } }, '*');
    await afterFrame();
    window.__longTasks = [];
    let longestFrameGapMs = 0;
    let lastFrame = performance.now();
    let streaming = true;
    const frame = (now) => {
      longestFrameGapMs = Math.max(longestFrameGapMs, now - lastFrame);
      lastFrame = now;
      if (streaming) requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
    const t0 = performance.now();
    let sent = 0;
    await new Promise((resolve) => {
      const timer = setInterval(() => {
        const due = Math.floor(((performance.now() - t0) * tokensPerSecond) / 1000);
        for (; sent < due; sent++) {
          const text = sent % 60 === 59 ? '.\\n\\n' : sent % 12 === 11 ? ', \`code\`' : ' word' + sent;
          window.postMessage({ type: 'runEvent', event: { type: 'textDelta', ...ref, text } }, '*');
        }
        if (performance.now() - t0 >= seconds * 1000) {
          clearInterval(timer);
          resolve();
        }
      }, 10);
    });
    await afterFrame();
    streaming = false;
    const longTasks = window.__longTasks.slice();
    window.postMessage({ type: 'runEvent', event: { type: 'runFinished', ...ref, reason: 'completed' } }, '*');
    return { longTasks, longestFrameGapMs };
  };
})();`;

function serve(): Promise<{ server: Server; url: string }> {
  const media = path.join(BENCH_DIR, '..', 'media');
  const server = createServer((req, res) => {
    const send = (type: string, body: string | Buffer): void => {
      res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(body);
    };
    const url = req.url ?? '/';
    if (url === '/' || url === '/?off') {
      const page = chatHtml({ cspSource: `http://${req.headers.host ?? ''}`, nonce: randomBytes(18).toString('base64'), scriptUri: '/media/chat.js', styleUri: '/media/chat.css' });
      send('text/html; charset=utf-8', url === '/?off' ? page.replace('<html lang="en">', '<html lang="en" data-chat-virtualise="off">') : page);
    } else if (url === '/media/chat.js') send('text/javascript; charset=utf-8', fs.readFileSync(path.join(media, 'chat.js')));
    else if (url === '/media/chat.css') send('text/css; charset=utf-8', fs.readFileSync(path.join(media, 'chat.css')));
    else {
      res.writeHead(404);
      res.end();
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })));
}

async function round(browser: Browser, url: string, off: boolean, transcript: unknown, expected: number, streamSeconds: number): Promise<ThreadRound> {
  const context = await browser.newContext({ viewport: { width: 400, height: 900 } });
  try {
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.addInitScript({ content: PAGE_SETUP });
    await page.goto(off ? `${url}/?off` : `${url}/`);
    await page.evaluate((t) => { window.__thread = t; }, transcript);
    const cdp = await context.newCDPSession(page);
    const heapMB = async (): Promise<number> => {
      await cdp.send('HeapProfiler.collectGarbage');
      return (await cdp.send('Runtime.getHeapUsage')).usedSize / 1024 / 1024;
    };
    await heapMB();
    const openMs = await page.evaluate((n) => window.__open(n), expected);
    // What the view renders in idle time after opening (LazyMarkdown) is done before the user's next message streams.
    await page.waitForFunction(() => document.querySelectorAll('.markdown-pending').length === 0, undefined, { timeout: 30_000 });
    const heapOpenMB = await heapMB();
    const dom = await page.evaluate(() => ({ elements: document.getElementsByTagName('*').length, chars: document.body.textContent?.length ?? 0 }));
    const stream = await page.evaluate(([s, r]) => window.__stream(s, r), [streamSeconds, TOKENS_PER_SECOND] as const);
    const heapStreamedMB = await heapMB();
    if (errors.length > 0) throw new Error(`the chat page failed: ${errors[0]}`);
    return {
      openMs,
      longTasks: stream.longTasks.length,
      longestTaskMs: Math.max(0, ...stream.longTasks),
      longestFrameGapMs: stream.longestFrameGapMs,
      heapOpenMB,
      heapStreamedMB,
      domElements: dom.elements,
      domChars: dom.chars,
    };
  } finally {
    await context.close();
  }
}

function medianRound(rounds: ThreadRound[]): ThreadRound {
  const m = (f: (r: ThreadRound) => number): number => median(rounds.map(f));
  return {
    openMs: m((r) => r.openMs),
    longTasks: m((r) => r.longTasks),
    longestTaskMs: m((r) => r.longestTaskMs),
    longestFrameGapMs: m((r) => r.longestFrameGapMs),
    heapOpenMB: m((r) => r.heapOpenMB),
    heapStreamedMB: m((r) => r.heapStreamedMB),
    domElements: m((r) => r.domElements),
    domChars: m((r) => r.domChars),
  };
}

export async function benchLongThreads(options: { quick: boolean }): Promise<LongThreadsResult> {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM} (set CLIENT_TOOLS_CHROMIUM)`);
  const { state, transcript } = longThread(LONG_THREAD);
  const rounds = options.quick ? 2 : 5;
  const streamSeconds = options.quick ? 2 : 5;
  const { server, url } = await serve();
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  const baseline: ThreadRound[] = [];
  const virtualised: ThreadRound[] = [];
  const emptyChat: ThreadRound[] = [];
  try {
    // A first page load warms Chromium's caches for both.
    await round(browser, url, false, transcript, state.items.length, 0.2);
    for (let i = 0; i < rounds; i++) {
      baseline.push(await round(browser, url, true, transcript, state.items.length, streamSeconds));
      virtualised.push(await round(browser, url, false, transcript, state.items.length, streamSeconds));
      emptyChat.push(await round(browser, url, false, null, 0, streamSeconds));
    }
  } finally {
    await browser.close();
    server.close();
  }
  return {
    turns: LONG_THREAD.turns,
    toolCards: LONG_THREAD.toolCards,
    largeResults: Math.floor(LONG_THREAD.toolCards / LONG_THREAD.largeEvery),
    items: state.items.length,
    itemCards: state.items.filter((it) => it.kind === 'tool').length,
    transcriptChars: JSON.stringify(transcript).length,
    streamSeconds,
    baseline,
    virtualised,
    medianBaseline: medianRound(baseline),
    medianVirtualised: medianRound(virtualised),
    emptyChat,
    medianEmptyChat: medianRound(emptyChat),
  };
}
