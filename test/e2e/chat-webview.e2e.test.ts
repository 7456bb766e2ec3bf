/**
 * The chat webview in real Chromium: the bundle built from src/webview/main.ts, the page and CSP the
 * host ships (chatHtml), a stubbed `acquireVsCodeApi`, dark-theme `--vscode-*` variables set the way
 * VS Code sets them. Run with `npm run test:e2e`; screenshots go to
 * test-results/chat-*.png.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { build } from 'esbuild';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { approvalDigestInput, MAX_USER_TEXT, type ChatApproval, type HostToWebview, type TranscriptPatch } from '../../src/protocol/webview';
import { CardStream } from '../../src/vscode/chat/cardStream';
import { TranscriptCopy } from '../../src/vscode/chat/transcriptCopy';
import { chatHtml } from '../../src/vscode/chat/chatHtml';
import type { ChatAction } from '../../src/webview/state';
import { ev, record } from '../unit/webview/fixtures';

// Browser globals used inside page callbacks (the root tsconfig has no DOM lib).
interface StubWindow {
  __posted: { type: string; text?: string }[];
  __violations: string[];
  postMessage(message: unknown, targetOrigin: string): void;
}
declare const window: StubWindow;
declare const document: { activeElement: { className: string; tagName: string } | null };
declare function requestAnimationFrame(callback: () => void): number;
declare const sessionStorage: { getItem(key: string): string | null };
declare function getComputedStyle(element: unknown): { outlineStyle: string; outlineColor: string };

const ROOT = path.resolve(__dirname, '../..');
const BUNDLE = path.join(ROOT, 'out/e2e/chat.js');
const RESULTS = path.join(ROOT, 'test-results');

/** VS Code's Dark Modern values for the variables the view uses. */
const DARK_THEME: Record<string, string> = {
  '--vscode-font-family': 'system-ui, "Ubuntu", "Droid Sans", sans-serif',
  '--vscode-font-size': '13px',
  '--vscode-editor-font-family': '"Droid Sans Mono", "monospace", monospace',
  '--vscode-editor-font-size': '12px',
  '--vscode-foreground': '#cccccc',
  '--vscode-descriptionForeground': '#9d9d9d',
  '--vscode-editor-background': '#1f1f1f',
  '--vscode-sideBar-background': '#181818',
  '--vscode-panel-border': '#2b2b2b',
  '--vscode-widget-border': '#313131',
  '--vscode-editorWidget-background': '#202020',
  '--vscode-button-background': '#0078d4',
  '--vscode-button-foreground': '#ffffff',
  '--vscode-button-hoverBackground': '#026ec1',
  '--vscode-button-border': '#ffffff12',
  '--vscode-button-secondaryBackground': '#313131',
  '--vscode-button-secondaryForeground': '#cccccc',
  '--vscode-button-secondaryHoverBackground': '#3c3c3c',
  '--vscode-input-background': '#313131',
  '--vscode-input-foreground': '#cccccc',
  '--vscode-input-border': '#3c3c3c',
  '--vscode-input-placeholderForeground': '#989898',
  '--vscode-focusBorder': '#0078d4',
  '--vscode-errorForeground': '#f85149',
  '--vscode-testing-iconPassed': '#73c991',
  '--vscode-editorWarning-foreground': '#cca700',
  '--vscode-progressBar-background': '#0078d4',
  '--vscode-textCodeBlock-background': '#2b2b2b',
  '--vscode-textLink-foreground': '#4daafc',
  '--vscode-textLink-activeForeground': '#4daafc',
  '--vscode-textPreformat-foreground': '#d0d0d0',
  '--vscode-textBlockQuote-border': '#616161',
  '--vscode-badge-background': '#616161',
  '--vscode-badge-foreground': '#f8f8f8',
  '--vscode-inputValidation-errorBackground': '#5a1d1d',
  '--vscode-inputValidation-errorBorder': '#be1100',
  '--vscode-inputValidation-warningBackground': '#352a05',
  '--vscode-inputValidation-warningBorder': '#b89500',
};

/**
 * Runs in the page before its scripts: the webview API stub (state kept in sessionStorage so a
 * reload restores it, like VS Code does), the theme variables, a CSP violation log. A string rather
 * than a function: tsx's transpiled functions reference helpers that do not exist in the page.
 */
/** A prompt as the extension sends it to the chat, with the digest of its texts. */
function approval(change: Partial<ChatApproval> & Pick<ChatApproval, 'promptId' | 'requestId' | 'message'>): ChatApproval {
  const base = { toolName: 'DeleteFile', groupName: 'IDE', detail: 'Requested by the agent through the IDE tool DeleteFile.', choices: [{ answer: 'allowSession' as const, label: 'Allow DeleteFile until this window closes' }], ...change };
  return { ...base, digest: createHash('sha256').update(approvalDigestInput(base)).digest('hex') };
}

function pageSetup(theme: Record<string, string>): string {
  return `(() => {
  const theme = ${JSON.stringify(theme)};
  window.__posted = [];
  window.__violations = [];
  let acquired = false;
  window.acquireVsCodeApi = () => {
    if (acquired) throw new Error('acquireVsCodeApi may be called only once');
    acquired = true;
    return {
      postMessage: (m) => { window.__posted.push(JSON.parse(JSON.stringify(m))); },
      getState: () => {
        const s = sessionStorage.getItem('vscodeState');
        return s === null ? undefined : JSON.parse(s);
      },
      setState: (s) => sessionStorage.setItem('vscodeState', JSON.stringify(s)),
    };
  };
  document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));
  document.addEventListener('DOMContentLoaded', () => {
    // VS Code puts the theme variables on <html> and a theme class on <body>.
    for (const [k, v] of Object.entries(theme)) document.documentElement.style.setProperty(k, v);
    document.body.classList.add('vscode-dark');
  });
})();`;
}

describe('chat webview in Chromium', function () {
  this.timeout(60_000);
  let server: Server;
  let baseUrl: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let consoleLines: string[];

  before(async () => {
    mkdirSync(RESULTS, { recursive: true });
    await build({
      entryPoints: [path.join(ROOT, 'src/webview/main.ts')],
      outfile: BUNDLE,
      bundle: true,
      format: 'iife',
      platform: 'browser',
      target: 'es2022',
      logLevel: 'silent',
    });
    server = createServer((req, res) => {
      const url = req.url ?? '/';
      const send = (type: string, body: string | Buffer) => {
        res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' });
        res.end(body);
      };
      if (url === '/') {
        send('text/html; charset=utf-8', chatHtml({
          cspSource: baseUrl,
          nonce: randomBytes(18).toString('base64'),
          scriptUri: `${baseUrl}/media/chat.js`,
          styleUri: `${baseUrl}/media/chat.css`,
        }));
      } else if (url === '/media/chat.js') {
        send('text/javascript; charset=utf-8', readFileSync(BUNDLE));
      } else if (url === '/media/chat.css') {
        send('text/css; charset=utf-8', readFileSync(path.join(ROOT, 'media/chat.css')));
      } else {
        res.writeHead(url === '/favicon.ico' ? 204 : 404);
        res.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: [
        '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
        '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage',
      ],
    });
  });

  after(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 380, height: 820 }, colorScheme: 'dark', reducedMotion: 'reduce' });
    page = await context.newPage();
    consoleLines = [];
    page.on('console', (m) => consoleLines.push(`${m.type()}: ${m.text()}`));
    page.on('pageerror', (e) => consoleLines.push(`pageerror: ${e.message}`));
    await page.addInitScript({ content: pageSetup(DARK_THEME) });
    await page.goto(`${baseUrl}/`);
    await page.waitForFunction(() => window.__posted.some((m) => m.type === 'ready'));
  });

  afterEach(async () => {
    const violations = await page.evaluate(() => window.__violations);
    await context.close();
    assert.deepEqual(violations, [], 'CSP violations');
    assert.deepEqual(consoleLines.filter((l) => /Content Security Policy|Refused to|pageerror|^error/i.test(l)), [], 'console errors');
  });

  /** What the host posts for these: a client call's run events become at most its record (src/vscode/chat/cardStream.ts). */
  let cards = new CardStream();
  beforeEach(() => {
    cards = new CardStream();
  });
  const viaHost = (m: HostToWebview | ChatAction): unknown[] => (m.type === 'runEvent' ? cards.runEvent(m.event) : m.type === 'callRecord' ? cards.record(m.record) : [m]);

  /** Posts host → webview messages (as the host does) and waits until the view has rendered them. */
  async function host(...messages: (HostToWebview | ChatAction)[]): Promise<void> {
    for (const m of messages.flatMap(viaHost)) await page.evaluate((msg) => window.postMessage(msg, '*'), m);
    await page.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))));
  }
  const posted = () => page.evaluate(() => window.__posted);
  /** The transcripts the host keeps, one per `transcriptPatch` the page posted, applied as the host applies them. */
  const savedTranscripts = async (): Promise<{ threadId: string; transcript: string }[]> => {
    const copy = new TranscriptCopy();
    return (await posted()).filter((m) => m.type === 'transcriptPatch').map((m) => {
      const patch = m as unknown as TranscriptPatch;
      const applied = copy.apply(patch);
      assert.ok(applied.ok, applied.ok ? '' : applied.message);
      return { threadId: patch.threadId, transcript: applied.json };
    });
  };
  const card = (tool: string) => page.locator('.tool-card', { has: page.locator('.tool-name', { hasText: new RegExp(`^${tool}$`) }) });
  const shot = (name: string) => page.screenshot({ path: path.join(RESULTS, `chat-${name}.png`) });

  it('renders a run: markdown, expansion, cards through permission, denial and an image result', async () => {
    // The expansion as its own line: clientTools.chat.showExpansionSteps on (the folded default has its own test).
    await host({ type: 'status', status: { connection: 'connected', model: 'offline-demo', offline: true } }, { type: 'displaySettings', showExpansionSteps: true });
    await shot('empty');
    const screenshotPng = await page.screenshot({ clip: { x: 0, y: 0, width: 160, height: 90 } });
    assert.equal(await page.locator('.offline-badge').isVisible(), true);
    assert.equal(await page.locator('.offline-badge').textContent(), 'Offline demo model');

    await host({ type: 'userMessage', text: 'Open the README, delete src/old.ts and show me a screenshot.' }, ev.started());
    assert.equal(await page.locator('button.stop').isVisible(), true, 'Stop is visible during a run');
    assert.equal(await page.locator('button.send').isVisible(), false, 'Stop takes the place of Send');

    await host(
      ev.text('I will **open** the README first'),
      ev.text(' and check it.\n\nHere is the plan:\n\n1. Open `README.md`\n2. Delete the old file\n\n```ts\nconst answer: number = 42;\n```\n\nSee [the docs](https://example.com/docs) or '),
      ev.text('[this](command:workbench.action.terminal.new) <img src=x onerror=alert(1)>.'),
    );
    assert.equal(await page.locator('.msg.answer').count(), 1, 'deltas stream into one answer');
    assert.equal(await page.locator('.msg.answer strong').textContent(), 'open');
    assert.equal(await page.locator('.msg.answer code.language-ts').textContent(), 'const answer: number = 42;\n');
    assert.equal(await page.locator('.msg.answer a[href="https://example.com/docs"]').count(), 1);
    assert.equal(await page.locator('.msg.answer a[href^="command:"]').count(), 0);
    assert.equal(await page.locator('.msg.answer img').count(), 0);
    assert.match((await page.locator('.msg.answer').textContent()) ?? '', /<img src=x onerror=alert\(1\)>/);

    await host(
      ev.expanded('IDE', ['OpenFile', 'ReadFile', 'DeleteFile']),
      // Client tool cards come from the extension's record of the call; the display event only matches it.
      ev.toolStarted('call-r1', 'OpenFile', { path: 'README.md', preview: false }, { group: 'IDE', executor: 'client' }),
      record('r1', 'OpenFile', { arguments: { path: 'README.md', preview: false }, status: 'awaiting-permission' }),
      { type: 'awaitingInput', open: true },
    );
    assert.equal(await page.locator('.event.expansion').textContent(), '+IDE expanded: OpenFile, ReadFile, DeleteFile');
    assert.equal(await card('OpenFile').locator('.tool-status').textContent(), 'Awaiting permission');
    // During a run the box stays open for steering, a prompt waiting too: Enter only queues (issue 30).
    assert.equal(await page.locator('textarea').isDisabled(), false, 'input is disabled during the run while a prompt is open');
    assert.equal(await page.locator('.banner').isVisible(), true);
    assert.match((await page.locator('.banner').textContent()) ?? '', /Awaiting your input/);
    await shot('awaiting');

    await host(
      { type: 'awaitingInput', open: false },
      record('r1', 'OpenFile', { arguments: { path: 'README.md', preview: false }, status: 'running', permission: { decision: 'allowed', via: 'prompt' } }),
      record('r1', 'OpenFile', {
        arguments: { path: 'README.md', preview: false }, status: 'succeeded', durationMs: 42, permission: { decision: 'allowed', via: 'prompt' },
        content: [{ type: 'text', text: 'Opened README.md in the editor.' }],
      }),
      record('r2', 'DeleteFile', { arguments: { path: 'src/old.ts' }, status: 'awaiting-permission' }),
      { type: 'awaitingInput', open: true },
      { type: 'awaitingInput', open: false },
      record('r2', 'DeleteFile', {
        arguments: { path: 'src/old.ts' }, status: 'denied', durationMs: 2600, permission: { decision: 'denied', via: 'user' },
        errorCode: 'PERMISSION_DENIED', errorMessage: 'The user denied DeleteFile.',
      }),
      ev.toolStarted('c3', 'TakeScreenshot', { target: 'activeEditor' }, { executor: 'server' }),
      ev.toolUpdated('c3', 'running'),
    );
    assert.equal(await page.locator('textarea').isDisabled(), false);
    assert.equal(await card('TakeScreenshot').locator('.tool-status').textContent(), 'Running');

    await host(
      ev.toolEnded('c3', 'succeeded', 1234, [
        { type: 'binary', mimeType: 'image/png', bytes: new Uint8Array(screenshotPng), filename: 'editor.png' },
        { type: 'binary', mimeType: 'application/pdf', bytes: new Uint8Array(2048) },
      ]),
      ev.text('I opened the README. You **denied** the delete, so `src/old.ts` is still there.'),
      ev.finished('completed'),
    );

    const statuses = await page.locator('.tool-card').evaluateAll((els) => els.map((e) => `${e.querySelector('.tool-name')?.textContent}:${e.className}`));
    assert.deepEqual(statuses, [
      'OpenFile:tool-card status-succeeded recorded',
      'DeleteFile:tool-card status-denied recorded',
      'TakeScreenshot:tool-card status-succeeded',
    ]);
    assert.equal(await card('OpenFile').locator('.tool-meta').textContent(), 'Ran in your editor · 42 ms');
    assert.equal(await card('DeleteFile').locator('.tool-status').textContent(), 'Denied');
    assert.equal(await card('TakeScreenshot').locator('.tool-meta').textContent(), 'Backend · 1.2 s');
    assert.equal(await card('OpenFile').locator('.tool-args').textContent(), 'path: "README.md", preview: false');
    assert.equal(await page.locator('button.stop').isVisible(), false, 'Stop hides when the run ends');
    assert.equal(await page.locator('button.send').isVisible(), true);
    assert.equal(await page.locator('button.send').isEnabled(), true);
    assert.match((await page.locator('[aria-live="polite"]').textContent()) ?? '', /You denied the delete/);

    // Expand the cards with the keyboard-operable summaries.
    await card('DeleteFile').locator('summary').click();
    await card('TakeScreenshot').locator('summary').click();
    await host();
    assert.equal(await card('DeleteFile').locator('.card-details').textContent(), 'The user denied DeleteFile.');
    assert.match((await card('DeleteFile').locator('pre code.language-json').textContent()) ?? '', /"path": "src\/old.ts"/);
    const img = card('TakeScreenshot').locator('img.result-image');
    assert.match((await img.getAttribute('src')) ?? '', /^data:image\/png;base64,iVBOR/);
    await page.waitForFunction(() => {
      const el = (globalThis as unknown as { document: { querySelector(s: string): { complete: boolean; naturalWidth: number } | null } }).document.querySelector('img.result-image');
      return el !== null && el.complete && el.naturalWidth > 0;
    });
    assert.match((await card('TakeScreenshot').locator('figcaption').textContent()) ?? '', /^editor\.png \([\d,]+ bytes of image\/png\)$/);
    assert.equal(await card('TakeScreenshot').locator('.binary').textContent(), '2,048 bytes of application/pdf');
    await card('TakeScreenshot').scrollIntoViewIfNeeded();
    await shot('run');
    await page.locator('.transcript').evaluate((el) => { el.scrollTop = 0; });
    await shot('run-top');
    await page.locator('.transcript').evaluate((el) => { el.scrollTop = el.scrollHeight; });
    await shot('run-bottom');
  });

  it('folds a group expansion into the first card of the group by default, and shows the steps again when the setting says so', async () => {
    await host(
      { type: 'status', status: { connection: 'connected', model: 'offline-demo', offline: true } },
      { type: 'userMessage', text: 'What is selected?' },
      ev.started(),
      ev.toolStarted('call-ide', 'IDE', {}, { group: 'IDE' }),
      ev.expanded('IDE', ['OpenFile', 'GetSelection', 'ShowMessage']),
      ev.toolEnded('call-ide', 'succeeded', 0, [{ type: 'text', text: 'IDE tools are now available.' }]),
      ev.toolStarted('call-sel', 'GetSelection', {}, { group: 'IDE', executor: 'client' }),
      record('r1', 'GetSelection', { callId: 'call-sel', status: 'succeeded', durationMs: 3, content: [{ type: 'text', text: 'line 1' }] }),
      record('r2', 'OpenFile', { callId: 'call-open', arguments: { path: 'README.md' }, status: 'succeeded', durationMs: 9 }),
      ev.text('Line 1 is selected.'),
      ev.finished('completed'),
    );
    const names = () => page.locator('.tool-card .tool-name').allTextContents();
    assert.deepEqual(await names(), ['GetSelection', 'OpenFile'], 'no card for the IDE group itself');
    assert.equal(await page.locator('.event.expansion').count(), 0, 'no "expanded" line');
    assert.equal(await card('GetSelection').locator('.fold-note').textContent(), 'Loaded the IDE group: OpenFile, GetSelection, ShowMessage');
    assert.equal(await card('GetSelection').locator('.fold-note').isVisible(), true);
    assert.equal(await card('OpenFile').locator('.fold-note').isVisible(), false, 'only the first card of the group says it');
    await shot('expansion-folded');

    await host({ type: 'displaySettings', showExpansionSteps: true });
    assert.deepEqual(await names(), ['IDE', 'GetSelection', 'OpenFile']);
    assert.equal(await page.locator('.event.expansion').textContent(), '+IDE expanded: OpenFile, GetSelection, ShowMessage');
    assert.equal(await card('IDE').locator('.tool-meta').textContent(), 'Backend · 0 ms');
    assert.equal(await card('GetSelection').locator('.fold-note').isVisible(), false);
    await shot('expansion-steps');
  });

  it('is keyboard reachable: Tab reaches the input and Send, Enter sends, Shift+Enter adds a line', async () => {
    await host({ type: 'status', status: { connection: 'connected', model: 'gpt-4.1-mini' } });
    const active = () => page.evaluate(() => `${document.activeElement?.tagName.toLowerCase()}.${document.activeElement?.className}`);
    const seen: string[] = [];
    // The empty state's example buttons (and Use a real model) come before the input in Tab order.
    for (let i = 0; i < 14 && !seen.includes('button.send'); i++) {
      await page.keyboard.press('Tab');
      seen.push(await active());
    }
    assert.ok(seen.includes('textarea.input'), `Tab order: ${seen.join(' → ')}`);
    assert.ok(seen.includes('button.send'), `Tab order: ${seen.join(' → ')}`);
    assert.ok(seen.indexOf('textarea.input') < seen.indexOf('button.send'));
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
    assert.notEqual(outline, 'none', 'focused button shows a focus ring');
    await shot('focus');

    await page.locator('textarea').focus();
    await page.keyboard.type('first line');
    await page.keyboard.press('Shift+Enter');
    await page.keyboard.type('second line');
    assert.deepEqual((await posted()).filter((m) => m.type === 'send'), []);
    await page.keyboard.press('Enter');
    assert.deepEqual((await posted()).filter((m) => m.type === 'send'), [{ type: 'send', text: 'first line\nsecond line' }]);
    assert.equal(await page.locator('textarea').inputValue(), '');
    await shot('keyboard');
  });

  it('Stop cancels the run and New Chat (from the history list; the view title has the other) clears the transcript; the composer has no New Chat or History of its own', async () => {
    await host({ type: 'userMessage', text: 'long task' }, ev.started(), ev.text('Working on it'));
    await page.locator('button.stop').click();
    await host();
    assert.deepEqual((await posted()).filter((m) => m.type === 'stop'), [{ type: 'stop' }]);
    assert.equal(await page.locator('button.stop').textContent(), 'Stopping…');
    await host(ev.finished('cancelled'));
    assert.equal(await page.locator('.event.notice').textContent(), 'Stopped.');
    assert.equal(await page.locator('form.composer button').allInnerTexts().then((t) => t.filter((x) => /New Chat|History/.test(x)).length), 0, 'New Chat and History are in one place: the view title');
    await host({ type: 'showHistory' });
    await page.locator('section.history button.history-new').click();
    await host();
    assert.deepEqual((await posted()).filter((m) => m.type === 'newChat'), [{ type: 'newChat' }]);
    assert.equal(await page.locator('.items > *').count(), 0);
    assert.equal(await page.locator('.empty').isVisible(), true);
  });

  it('shows errors with Retry, which re-sends the last user message', async () => {
    await host(
      { type: 'status', status: { connection: 'reconnecting', detail: 'connection lost' } },
      { type: 'userMessage', text: 'summarize this file' },
      ev.started(),
      ev.error('MODEL_RATE_LIMITED', 'The model endpoint kept answering 429 after retries.', true),
    );
    assert.equal(await page.locator('.conn-detail').textContent(), 'connection lost');
    const retry = page.locator('.error-item button.retry');
    assert.equal(await retry.isEnabled(), true);
    assert.equal(await page.locator('.error-item .error-code').textContent(), 'MODEL_RATE_LIMITED');
    await shot('error');
    await retry.click();
    assert.deepEqual((await posted()).filter((m) => m.type === 'retry'), [{ type: 'retry', text: 'summarize this file' }]);
  });

  it('restores the transcript after a reload and refuses invalid host messages whole, telling the host with INVALID_MESSAGE', async () => {
    await host({ type: 'userMessage', text: 'hello' }, ev.started(), ev.text('Hi **there**'), ev.finished());
    await host({ type: 'executeCommand', command: 'workbench.action.terminal.new' } as unknown as HostToWebview);
    await host({ type: 'runEvent', event: { type: 'textDelta' } } as unknown as HostToWebview);
    assert.equal(await page.locator('.msg.answer .markdown').textContent(), 'Hi there\n');
    const refused = (await posted()).filter((m) => m.type === 'refusedMessage') as unknown as { code: string; message: string }[];
    assert.deepEqual(refused.map((r) => r.code), ['INVALID_MESSAGE', 'INVALID_MESSAGE']);
    assert.match(refused[0].message, /^type: /);
    assert.match(refused[1].message, /^event\./);
    await page.reload();
    await page.waitForFunction(() => window.__posted.some((m) => m.type === 'ready'));
    assert.equal(await page.locator('.msg.user .user-text').textContent(), 'hello');
    assert.equal(await page.locator('.msg.answer strong').textContent(), 'there');
  });

  it('a finished turn is saved at once, to the host and to the webview state, not after the save delay', async () => {
    const threadId = '3b241101-e2bb-4255-8caf-4136c566a962';
    await host({ type: 'showThread', threadId });
    await host({ type: 'userMessage', text: 'remember me' }, ev.started(), ev.text('Remembered.'));
    const before = (await savedTranscripts()).length;
    // No timer has run yet (the transcript waits a second, the state 200 ms): only the end of the run saves here.
    await page.evaluate((finished) => window.postMessage(finished, '*'), ev.finished() as unknown as HostToWebview);
    const saved = { transcripts: await savedTranscripts(), state: await page.evaluate(() => sessionStorage.getItem('vscodeState') ?? '') };
    assert.equal(saved.transcripts.length, before + 1, 'one save, right after runFinished');
    const last = saved.transcripts.at(-1)!;
    assert.equal(last.threadId, threadId);
    assert.match(last.transcript, /remember me/);
    assert.match(last.transcript, /Remembered\./);
    assert.match(saved.state, /Remembered\./);
  });

  it('while an answer streams, the host gets only the changed item and the state is saved less often; hiding the view saves both at once', async () => {
    const threadId = '0c7e5b1a-9d3f-4e2b-8a6c-5f4d3e2c1b0a';
    await host({ type: 'showThread', threadId });
    await host({ type: 'userMessage', text: 'a long answer please' }, ev.started(), ev.text('First part.'));
    // The transcript goes after a second: whole, the first time.
    await page.waitForFunction(() => window.__posted.some((m) => m.type === 'transcriptPatch'));
    await host(ev.text(' Second part.'));
    await page.waitForFunction(() => window.__posted.filter((m) => m.type === 'transcriptPatch').length >= 2);
    const patches = (await posted()).filter((m) => m.type === 'transcriptPatch') as unknown as TranscriptPatch[];
    assert.equal(patches[0].base, null, 'the whole transcript first');
    assert.equal(patches[1].base, patches[0].revision, 'then the change from it');
    assert.deepEqual([patches[1].set.length, patches[1].append.length], [1, 0], 'the streaming answer replaced, nothing else');
    assert.match(patches[1].set[0][1], /First part\. Second part\./);
    assert.match((await savedTranscripts()).at(-1)!.transcript, /a long answer please/);
    // While the run streams the state waits 2 s between saves, not 200 ms: 600 ms after a delta it is not saved yet.
    await host(ev.text(' Third part.'));
    await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 600)));
    assert.doesNotMatch(await page.evaluate(() => sessionStorage.getItem('vscodeState') ?? ''), /Third part/);
    // The page may be thrown away once hidden: both are saved right then.
    await page.evaluate(`Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
      document.dispatchEvent(new Event('visibilitychange'));`);
    assert.match(await page.evaluate(() => sessionStorage.getItem('vscodeState') ?? ''), /Third part/);
    assert.match((await savedTranscripts()).at(-1)!.transcript, /Third part/);
  });

  it('a permission prompt saves the transcript at once: the user may hide the chat right then', async () => {
    const threadId = '5a0f3c1e-2b7d-4c55-8e0f-1c2d3e4f5a6b';
    await host({ type: 'showThread', threadId });
    await host({ type: 'userMessage', text: 'delete hello.txt' }, ev.started());
    const before = (await savedTranscripts()).length;
    const prompt = approval({ promptId: 'p-1', requestId: 'r1', message: 'Delete hello.txt (12 B)?' });
    // No timer has run yet: only the prompt's arrival saves here.
    await page.evaluate((m) => window.postMessage(m, '*'), { type: 'approval', prompt } as unknown as HostToWebview);
    const saved = { transcripts: await savedTranscripts(), state: await page.evaluate(() => sessionStorage.getItem('vscodeState') ?? '') };
    assert.equal(saved.transcripts.length, before + 1, 'one save, right when the prompt came');
    assert.match(saved.transcripts.at(-1)!.transcript, /delete hello\.txt/);
    assert.match(saved.state, /delete hello\.txt/);
  });

  it('the approval card answers its own prompt: by the id the extension minted, with the SHA-256 of the text it shows; the same request id under a new prompt rebuilds it; a reload restores no prompt', async () => {
    const harmless = approval({ promptId: 'p-harmless', requestId: 'x', message: 'Delete harmless.txt (9 B)?' });
    await host({ type: 'approval', prompt: harmless });
    const card = page.locator('section.approval');
    assert.equal(await card.locator('.approval-message').innerText(), 'Delete harmless.txt (9 B)?');
    // A new session asks under the same request id: the card shows the new prompt, not the old text.
    const important = approval({ promptId: 'p-important', requestId: 'x', message: 'Delete important.docx (2 MB)?' });
    await host({ type: 'approval', prompt: important });
    assert.equal(await card.locator('.approval-message').innerText(), 'Delete important.docx (2 MB)?');
    await card.getByRole('button', { name: 'Allow', exact: true }).click();
    await page.waitForFunction(() => window.__posted.some((m) => m.type === 'approvalAnswer'));
    const answer = (await posted()).find((m) => m.type === 'approvalAnswer') as unknown as Record<string, unknown>;
    assert.deepEqual(answer, { type: 'approvalAnswer', promptId: 'p-important', digest: important.digest, answer: 'allow' }, 'the digest of what the card showed');
    await shot('approval-identity');

    // The page is thrown away (the chat hidden) and restored: no prompt until the host says which is open.
    await host({ type: 'approval', prompt: harmless });
    await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 300)));
    await page.reload();
    await page.waitForFunction(() => window.__posted.some((m) => m.type === 'ready'));
    await host();
    assert.equal(await card.isVisible(), false, 'a prompt was restored from the saved state');
    await host({ type: 'approval', prompt: important });
    assert.equal(await card.locator('.approval-message').innerText(), 'Delete important.docx (2 MB)?');
  });

  it('shows the host\'s copy of the thread it already shows (a window reload): the transcript is redrawn, nothing throws', async () => {
    const threadId = '9d7d1c0e-5f3a-4a55-9f0e-2b1f6a8c4d21';
    await host({ type: 'showThread', threadId });
    await host({ type: 'userMessage', text: 'open notes.md' }, ev.started(), ev.text('Opened.'), ev.finished());
    const saved = (await savedTranscripts()).at(-1)!;
    // The host's copy has one turn more than the view restored, with the same item ids at the start.
    const copy = JSON.parse(saved.transcript) as { items: { id: string }[]; nextId: number };
    const more = { ...copy, items: [...copy.items, { kind: 'user', id: `i${copy.nextId}`, text: 'list the files again' }], nextId: copy.nextId + 1 };
    await host({ type: 'showThread', threadId, transcript: more });
    assert.deepEqual(await page.locator('.msg.user .user-text').allInnerTexts(), ['open notes.md', 'list the files again']);
    assert.equal(await page.locator('.msg.answer .markdown').innerText(), 'Opened.');
    // The afterEach hook fails the test on any page error (the old renderer threw NotFoundError here).
  });

  it('renders in a frame that gets no animation frames (hidden, or restored after a reload, in Chromium)', async () => {
    const frameless = await context.newPage();
    await frameless.addInitScript({ content: `${pageSetup(DARK_THEME)}\nwindow.requestAnimationFrame = () => 0;` });
    await frameless.goto(`${baseUrl}/`);
    await frameless.waitForFunction(() => window.__posted.some((m) => m.type === 'ready'));
    for (const m of [{ type: 'userMessage', text: 'still drawn' }, ev.started(), ev.text('Drawn without frames.'), ev.finished()]) {
      await frameless.evaluate((msg) => window.postMessage(msg, '*'), m as unknown as HostToWebview);
    }
    await frameless.locator('.msg.user .user-text', { hasText: 'still drawn' }).waitFor({ timeout: 5_000 });
    await frameless.locator('.msg.answer .markdown', { hasText: 'Drawn without frames.' }).waitFor({ timeout: 5_000 });
    await frameless.close();
  });

  it('builds client tool cards from the extension\'s record: background calls, remembered grants, a call announced as another tool; the backend\'s word alone makes no card', async () => {
    await host({ type: 'status', status: { connection: 'connected', model: 'gpt-4.1-mini' } });
    // While idle, the backend reads a file: a background call, asked for.
    await host(record('b1', 'ReadFile', { background: true, arguments: { path: 'notes.txt' }, target: 'notes.txt', status: 'awaiting-permission' }));
    const background = page.locator('.tool-card.background');
    assert.equal(await background.locator('.background-badge').isVisible(), true);
    assert.equal(await background.locator('.background-badge').textContent(), 'Background');
    assert.equal(await background.locator('.tool-status').textContent(), 'Awaiting permission');
    await host(record('b1', 'ReadFile', {
      background: true, arguments: { path: 'notes.txt' }, target: 'notes.txt', status: 'succeeded', durationMs: 8,
      permission: { decision: 'allowed', via: 'prompt' }, content: [{ type: 'text', text: 'Remember to water the plants.' }],
    }));
    assert.equal(await background.locator('.tool-meta').textContent(), 'Ran in your editor · 8 ms');

    // A run of the user's: the backend announces GetSelection, then asks for DeleteFile under that call id,
    // let through by a remembered grant; and it announces a ShowMessage it never sends.
    await host(
      { type: 'userMessage', text: 'what did I select?' },
      ev.started(),
      ev.toolStarted('call-r7', 'GetSelection', {}, { group: 'IDE', executor: 'client' }),
      record('r7', 'DeleteFile', {
        arguments: { path: 'src/old.ts' }, target: 'Delete src/old.ts (1.2 KB)?', status: 'succeeded', durationMs: 15,
        permission: { decision: 'allowed', via: 'remembered', grantLabel: 'Delete src/old.ts for this session' },
        content: [{ type: 'text', text: 'Moved src/old.ts to the trash.' }],
      }),
      ev.toolStarted('call-ghost', 'ShowMessage', { text: 'hi' }, { group: 'IDE', executor: 'client' }),
      ev.toolEnded('call-ghost', 'succeeded', 1, [{ type: 'text', text: 'shown' }]),
      // A call the editor refused before running it, and one the backend ended before sending it.
      record('r8', 'OpenFile', { status: 'failed', refused: true, durationMs: 0, errorCode: 'INVALID_ARGUMENTS', errorMessage: 'path: is required' }),
      ev.toolStarted('call-unsent', 'GetDiagnostics', { path: 'big.log' }, { group: 'Workspace', executor: 'client' }),
      ev.toolEnded('call-unsent', 'failed', 0, [], 'GetDiagnostics was not sent: its request is larger than the editor accepts'),
      ev.finished('completed'),
    );
    assert.equal(await card('GetSelection').count(), 0, 'no card for what was only announced');
    assert.equal(await card('ShowMessage').count(), 0, 'no card for a "success" the editor never executed');
    assert.equal(await card('OpenFile').locator('.tool-meta').textContent(), 'Refused by your editor · 0 ms');
    assert.equal(await card('GetDiagnostics').locator('.tool-meta').textContent(), 'Not sent to your editor · 0 ms');
    const ran = card('DeleteFile');
    assert.equal(await ran.locator('.tool-meta').textContent(), 'Ran in your editor · 15 ms');
    assert.equal(await ran.locator('.background-badge').isVisible(), false);
    await ran.locator('summary').click();
    await host();
    assert.equal(await ran.locator('.announced-mismatch').textContent(), 'The backend announced this call as GetSelection; your editor ran DeleteFile.');
    assert.equal(await ran.locator('.permission-note').textContent(), 'Allowed by your earlier choice: Delete src/old.ts for this session');
    await background.locator('summary').click();
    await host();
    assert.match((await background.locator('.background-note').textContent()) ?? '', /no chat run you started/);
    await page.locator('.transcript').evaluate((el) => { el.scrollTop = 0; });
    await shot('record-cards');
  });

  it('says "No content." only for a call that ran and returned nothing; a denied, failed or cancelled card shows its reason, no empty result (issue 29)', async () => {
    await host(
      ev.started(),
      record('r1', 'GetSelection', { status: 'succeeded', durationMs: 2 }),
      record('r2', 'DeleteFile', { arguments: { path: 'src/old.ts' }, status: 'denied', durationMs: 900, permission: { decision: 'denied', via: 'user' }, errorCode: 'PERMISSION_DENIED', errorMessage: 'The user denied DeleteFile.' }),
      record('r3', 'ReadFile', { arguments: { path: 'gone.ts' }, status: 'failed', durationMs: 3, errorCode: 'NOT_FOUND', errorMessage: 'No file gone.ts.' }),
      record('r4', 'OpenFile', { arguments: { path: 'a.ts' }, status: 'cancelled', durationMs: 1 }),
      ev.finished(),
    );
    for (const tool of ['GetSelection', 'DeleteFile', 'ReadFile', 'OpenFile']) await card(tool).locator('summary').click();
    await host();
    const body = (tool: string) => card(tool).locator('.card-body');
    assert.equal(await body('GetSelection').locator('p.muted').textContent(), 'No content.');
    assert.equal(await body('DeleteFile').locator('.card-details').textContent(), 'The user denied DeleteFile.');
    assert.equal(await body('ReadFile').locator('.card-details').textContent(), 'No file gone.ts.');
    for (const tool of ['DeleteFile', 'ReadFile', 'OpenFile']) {
      const text = (await body(tool).textContent()) ?? '';
      assert.doesNotMatch(text, /No content/, `${tool}: ${text}`);
      assert.deepEqual(await body(tool).locator('.section-label').allTextContents(), ['Arguments'], `${tool} has no Result section`);
    }
  });

  it('keeps a message over the protocol\'s length limit in the box and says so, rather than sending what the extension would refuse and clearing it', async () => {
    await host({ type: 'status', status: { connection: 'connected', model: 'offline-demo', offline: true } });
    const long = 'x'.repeat(MAX_USER_TEXT + 1);
    await page.locator('textarea').fill(long);
    await page.locator('textarea').press('Enter');
    await host();
    assert.equal((await posted()).filter((m) => m.type === 'send').length, 0, 'nothing sent');
    assert.equal(await page.locator('textarea').inputValue(), long, 'the text is still in the box');
    assert.match(await page.locator('textarea').evaluate((el) => (el as unknown as { validationMessage: string }).validationMessage), /100,001 characters; at most 100,000/);
    await page.locator('textarea').fill('short');
    await page.locator('textarea').press('Enter');
    await host();
    assert.deepEqual((await posted()).filter((m) => m.type === 'send').map((m) => m.text), ['short']);
  });
});
