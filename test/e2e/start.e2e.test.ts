/**
 * `npm start` as a user runs it: the start script builds, starts code-server with the extension and
 * the sample workspace, and prints a URL. A real Chromium loads that URL, the workbench comes up
 * with the Client Tools view, the chat says it runs the offline demo model, and a question typed in
 * the chat gets its answer. Ctrl+C (SIGINT) then stops everything the script started.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import * as readline from 'node:readline';
import { chromium, type Browser } from 'playwright-core';

const ROOT = path.resolve(__dirname, '../..');
const RESULTS = path.join(ROOT, 'test-results');
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'];

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => { s.destroy(); resolve(true); });
    s.once('error', () => resolve(false));
  });
}

describe('npm start', function () {
  this.timeout(180_000);
  let child: ChildProcess | undefined;
  let browser: Browser | undefined;

  after(async () => {
    await browser?.close();
    if (child && child.exitCode === null) child.kill('SIGKILL');
  });

  it('prints a URL where VS Code runs the extension, and Ctrl+C stops everything', async () => {
    child = spawn(process.execPath, ['scripts/start.mjs'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, OPENAI_BASE_URL: '', CLIENT_TOOLS_MODEL: '' } });
    const output: string[] = [];
    child.stderr!.on('data', (d: Buffer) => output.push(d.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ready line within 150 s:\n${output.join('')}`)), 150_000);
      readline.createInterface({ input: child!.stdout! }).on('line', (line) => {
        output.push(`${line}\n`);
        if (!line.startsWith('{')) return;
        const msg = JSON.parse(line) as { event?: string; url?: string };
        if (msg.event === 'ready' && msg.url) {
          clearTimeout(timer);
          resolve(msg.url);
        }
      });
      child!.once('exit', (code) => reject(new Error(`start exited early with ${code}:\n${output.join('')}`)));
    });
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\//);
    assert.match(output.join(''), /Press Ctrl\+C to stop/);
    const port = Number(new URL(url).port);

    browser = await chromium.launch({ executablePath: process.env.CLIENT_TOOLS_CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(url);
    await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
    await page.locator('.activitybar [aria-label^="Client Tools"]').first().click({ timeout: 30_000 });
    const chat = page.frameLocator('iframe.webview').frameLocator('iframe#active-frame');
    await chat.getByText(/offline demo model/i).first().waitFor({ timeout: 60_000 });
    const input = chat.locator('textarea');
    await input.fill('open notes.md');
    await input.press('Enter');
    await page.locator('.tabs-container div.tab[data-resource-name="notes.md"]').waitFor({ timeout: 60_000 });
    mkdirSync(RESULTS, { recursive: true });
    await page.screenshot({ path: path.join(RESULTS, 'start-workbench.png') });
    await browser.close();
    browser = undefined;

    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
    child.kill('SIGINT');
    assert.equal(await exited, 0);
    assert.equal(await portOpen(port), false, 'code-server still listens after Ctrl+C');
  });
});
