/**
 * A model endpoint that takes every request and never answers, as a user meets it in a real VS Code
 * (code-server, real Chromium): the run says what it waits for and retries live, then ends with an
 * error that offers a way out (Select Model, the offline demo, Retry, the log), and the status bar
 * says what the chat header says about the model, changing with the setting.
 *
 * The endpoint is a loopback HTTP server on port 0 that reads each request and sends nothing back.
 * Screenshots go to test-results/stuck-model-*.png.
 *
 * Run alone: npm run build && npx mocha --no-config --require tsx/cjs --extension ts --timeout 300000 --exit test/e2e/stuck-model.e2e.test.ts
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { ChatDriver, RESULTS_DIR } from './support/chat-driver';
import { startVSCode, workspaceScripts, type Harness } from './support/vscode';

/** An endpoint that accepts every request and never answers; counts the chat requests it got. */
async function startSilentEndpoint(): Promise<{ baseUrl: string; chatRequests: () => number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let chat = 0;
  const server = http.createServer((req) => {
    if (req.url?.endsWith('/chat/completions')) chat++;
    req.resume();
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    chatRequests: () => chat,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

describe('A model that never answers, in a real VS Code: retries shown live, an error with a way out, status bar and header agree', function () {
  this.timeout(300_000);
  let endpoint: Awaited<ReturnType<typeof startSilentEndpoint>>;
  let harness: Harness | undefined;
  let cleanupWorkspace: (() => void) | undefined;
  let page: Page;
  let chat: ChatDriver;
  const shot = (name: string) => page.screenshot({ path: path.join(RESULTS_DIR, `stuck-model-${name}.png`) });
  const statusItem = (): Locator => page.locator('.statusbar-item', { hasText: /Client Tools/ }).first();

  before(async function () {
    this.timeout(300_000);
    assert.ok(fs.existsSync(path.resolve(__dirname, '../../media/chat.js')), 'media/chat.js is missing: run `npm run build` first');
    fs.mkdirSync(RESULTS_DIR, { recursive: true });
    endpoint = await startSilentEndpoint();
    const copy = (await workspaceScripts()).copyFixtureWorkspace();
    cleanupWorkspace = copy.cleanup;
    harness = await startVSCode({
      workspace: copy.workspace,
      startTimeoutMs: 120_000,
      settings: {
        'clientTools.model.baseUrl': endpoint.baseUrl,
        'clientTools.model.name': 'llama3.1',
        'clientTools.model.firstByteTimeoutSeconds': 2,
        'clientTools.model.retries': 1,
      },
    });
    // The model settings stay in the user settings alone, as on a desktop: the harness also copies
    // them into the remote ("Machine") settings, where they would outrank what a command writes.
    const machine = path.join(harness.tempDir, 'user-data', 'Machine', 'settings.json');
    const remote = JSON.parse(fs.readFileSync(machine, 'utf8')) as Record<string, unknown>;
    for (const key of Object.keys(remote)) if (key.startsWith('clientTools.model.')) delete remote[key];
    fs.writeFileSync(machine, JSON.stringify(remote, null, 2));
    page = harness.page;
    chat = new ChatDriver(page);
    await chat.open();
  });

  after(async () => {
    await harness?.stop();
    cleanupWorkspace?.();
    await endpoint?.close();
  });

  afterEach(async function () {
    if (this.currentTest?.state !== 'failed' || !harness) return;
    await shot(`failed-${this.currentTest.title.replace(/\W+/g, '-').slice(0, 60)}`).catch(() => undefined);
    console.error(`code-server log:\n${harness.logTail(30)}`);
  });

  it('the connection test finds no answer: the header says "Model unreachable" and the status bar says the same', async () => {
    await chat.frame.locator('.conn-dot.model-down').waitFor({ timeout: 60_000 });
    assert.equal(await chat.frame.locator('.conn-text').innerText(), 'Model unreachable');
    await page.locator('.statusbar-item', { hasText: 'Client Tools: model unreachable' }).waitFor({ timeout: 10_000 });
    assert.doesNotMatch(await statusItem().innerText(), /^\s*Client Tools\s*$/, 'not a plain "connected" item');
  });

  it('a message: the run shows the retry as it happens ("No answer from llama3.1 at … within 2 s — retrying 1/1 in 2 s"), then an error with Retry, Select Model, Use the offline demo and Show Log', async () => {
    await chat.send('hello', []);
    const notice = chat.notices().filter({ hasText: 'retrying' });
    await notice.waitFor({ timeout: 20_000 });
    assert.equal(await notice.innerText(), `No answer from llama3.1 at ${endpoint.baseUrl} within 2 s — retrying 1/1 in 2 s`);
    assert.ok(await chat.stopButton.isVisible(), 'the retry is announced while the run still goes on');
    await shot('1-retrying');

    const error = chat.frame.locator('.msg.error-item').last();
    await error.waitFor({ timeout: 30_000 });
    assert.match(await error.locator('.error-text').innerText(), /^Error: No answer from llama3\.1 at .* within 2 s: .*Tried 2 times\.$/);
    assert.deepEqual(await error.locator('.error-actions button').allInnerTexts(), ['Retry', 'Select Model', 'Use the offline demo', 'Show Log']);
    assert.equal(endpoint.chatRequests(), 2, 'the request was sent twice (one retry)');
    await chat.waitForIdle();
    await chat.frame.locator('.conn-dot.model-down').waitFor({ timeout: 5_000 });
    // The run's own finding replaces the connection test's in the header.
    assert.match(await chat.frame.locator('.conn-detail').innerText(), /No answer from llama3\.1 at .* within 2 s/);
    await page.locator('.statusbar-item', { hasText: 'Client Tools: model unreachable' }).waitFor({ timeout: 5_000 });
    await shot('2-error-with-actions');
  });

  it('"Use the offline demo" switches the model: header and status bar both say so at once, the old error loses its actions, and the next message is answered', async () => {
    const oldError = chat.frame.locator('.msg.error-item').last();
    await oldError.getByRole('button', { name: 'Use the offline demo', exact: true }).click();
    await chat.frame.getByText('Offline demo model').waitFor({ timeout: 60_000 });
    await page.locator('.statusbar-item', { hasText: 'Client Tools: offline demo' }).waitFor({ timeout: 10_000 });
    assert.equal(await chat.frame.locator('.conn-dot.model-down').count(), 0, 'the header dropped the old endpoint\'s reason');
    // The old model's error keeps its text but no longer offers Retry against a model that is gone.
    await oldError.locator('.error-stale', { hasText: 'The model was switched since.' }).waitFor({ timeout: 10_000 });
    assert.equal(await oldError.locator('button').count(), 0);
    const turn = await chat.send('hello', []);
    assert.ok((await chat.waitForAnswer(turn.answer())).length > 0);
    await shot('3-offline-demo');
  });
});
