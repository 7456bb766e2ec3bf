/**
 * A real MCP server from the npm registry as a client tool group, as a user meets it in a real
 * VS Code (code-server) and a real Chromium, with the bundled backend driving the real `openai` SDK
 * against the fake OpenAI endpoint (test/support/fake-openai.ts) on loopback:
 * - the workspace's `.vscode/mcp.json` names the reference server `@modelcontextprotocol/server-everything`;
 *   a modal asks once, showing the exact command line, and after Start Server the Tool Groups view
 *   lists the group `MCP: everything`;
 * - the model expands the group and calls its image tool; the permission prompt in the chat names
 *   the tool and the server; after Allow the card shows the image, and the model's next request
 *   carries it as an image part.
 *
 * Screenshots go to test-results/mcp-servers-*.png.
 *
 * Run: node esbuild.mjs && npx mocha --no-config --require tsx/cjs --timeout 300000 test/e2e/mcp-servers-group.e2e.test.ts
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { toFunctionName } from '../../src/protocol/functionNames';
import { startFakeOpenAI, type ChatRequestMessage, type FakeOpenAI } from '../support/fake-openai';
import { ChatDriver, modalDialog, RESULTS_DIR } from './support/chat-driver';

const ROOT = path.resolve(__dirname, '../..');
const EVERYTHING = path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const IMAGE_TOOL = 'mcp_everything_get-tiny-image';

interface Harness {
  page: Page | null;
  logTail(lines?: number): string;
  stop(): Promise<void>;
}

/** The image parts of a request's messages (`image_url` data URLs), as the SDK sent them. */
function imageParts(messages: ChatRequestMessage[]): string[] {
  const out: string[] = [];
  for (const m of messages) {
    if (!Array.isArray(m.content)) continue;
    for (const p of m.content as { type?: string; image_url?: { url?: string } }[]) if (p.type === 'image_url' && p.image_url?.url) out.push(p.image_url.url);
  }
  return out;
}

describe('The user\'s MCP server as a client tool group, in a real VS Code with the bundled backend and the fake endpoint', function () {
  this.timeout(300_000);
  let harness: Harness | undefined;
  let cleanupWorkspace: (() => void) | undefined;
  let fake: FakeOpenAI;
  let page: Page;
  let chat: ChatDriver;
  const screenshot = (name: string) => page.screenshot({ path: path.join(RESULTS_DIR, `mcp-servers-${name}.png`) });

  before(async function () {
    for (const built of ['dist/extension.js', 'dist/backend/cli.js', 'media/chat.js']) {
      assert.ok(fs.existsSync(path.join(ROOT, built)), `${built} is missing: run \`node esbuild.mjs\` first`);
    }
    assert.ok(fs.existsSync(EVERYTHING), 'node_modules lacks @modelcontextprotocol/server-everything');
    fs.mkdirSync(RESULTS_DIR, { recursive: true });
    fake = await startFakeOpenAI();
    // @ts-expect-error plain ESM script without types
    const { copyFixtureWorkspace } = (await import('../../scripts/test-workspace.mjs')) as {
      copyFixtureWorkspace(): { workspace: string; cleanup: () => void };
    };
    // @ts-expect-error plain ESM script without types
    const { startVSCode } = (await import('../../scripts/vscode-harness.mjs')) as {
      startVSCode(options: { workspace: string; settings: Record<string, unknown> }): Promise<Harness>;
    };
    const copy = copyFixtureWorkspace();
    cleanupWorkspace = copy.cleanup;
    fs.mkdirSync(path.join(copy.workspace, '.vscode'), { recursive: true });
    fs.writeFileSync(path.join(copy.workspace, '.vscode', 'mcp.json'), JSON.stringify({
      servers: { everything: { type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] } },
    }, null, 2));
    harness = await startVSCode({
      workspace: copy.workspace,
      settings: {
        'clientTools.model.baseUrl': fake.baseURL,
        'clientTools.model.name': 'fake-model',
        // The fake model is no known vision model: images reach it only when vision is on.
        'clientTools.model.vision': 'on',
      },
    });
    assert.ok(harness.page, 'the harness opened no page');
    page = harness.page;
    chat = new ChatDriver(page);
  });

  after(async () => {
    await harness?.stop();
    cleanupWorkspace?.();
    await fake?.close();
  });

  afterEach(async function () {
    if (this.currentTest?.state !== 'failed' || !harness?.page) return;
    await screenshot(`failed-${this.currentTest.title.replace(/\W+/g, '-').slice(0, 60)}`).catch(() => undefined);
    console.error(`code-server log:\n${harness.logTail(30)}`);
  });

  it('asks once to start the workspace server, showing the exact command line; after Start Server the Tool Groups view lists MCP: everything', async () => {
    const dialog = modalDialog(page);
    await dialog.waitFor({ state: 'visible', timeout: 60_000 });
    const text = await dialog.innerText();
    assert.match(text, /Start the MCP server "everything" from this workspace\?/);
    assert.ok(text.includes(`Command: ${process.execPath} ${EVERYTHING} stdio`), `the dialog shows: ${text}`);
    assert.match(text, /Configured in .*\.vscode\/mcp\.json/);
    await screenshot('1-approval');
    await dialog.getByRole('button', { name: 'Start Server', exact: true }).click();
    await dialog.waitFor({ state: 'hidden', timeout: 10_000 });

    await chat.open();
    // The Tool Groups view gets the side bar to itself (the chat pane folded) so its rows are drawn.
    // In the side bar only: newer VS Code has a Chat view of its own in the secondary side bar.
    const header = (title: string, expanded: boolean) => page.locator(`.part.sidebar .pane-header[aria-expanded="${expanded}"]`, { hasText: title });
    if (await header('Tool Groups', false).count()) await header('Tool Groups', false).click();
    await header('Chat', true).click();
    const row = page.locator('.monaco-list-row', { hasText: 'MCP: everything' });
    await row.waitFor({ timeout: 60_000 });
    await row.click();
    await page.locator('.monaco-list-row', { hasText: IMAGE_TOOL }).waitFor({ timeout: 10_000 });
    assert.match(await page.locator('.monaco-list-row', { hasText: IMAGE_TOOL }).innerText(), /asks you first/);
    await screenshot('2-tool-groups');
    // Back to the chat taking the side bar, for the next screenshots.
    await header('Tool Groups', true).click();
    await header('Chat', false).click();
    await chat.frame.locator('.conn-dot.conn-connected').waitFor({ timeout: 30_000 });
  });

  it('the model expands MCP: everything and calls its image tool; after Allow the image shows on the card and reaches the model', async () => {
    fake.enqueue(
      { toolCalls: [{ name: toFunctionName('MCP: everything'), arguments: {} }] },
      { toolCalls: [{ name: IMAGE_TOOL, arguments: {} }] },
      { text: 'Here is the MCP logo from your everything server.' },
    );
    const before = fake.requests.length;
    const turn = await chat.send('show me the tiny image from the everything server', [IMAGE_TOOL]);
    await chat.approval.waitFor({ state: 'visible', timeout: 60_000 });
    assert.match(await chat.approval.locator('.approval-message').innerText(), /^Run get-tiny-image on the MCP server "everything"\?$/);
    assert.match(await chat.approval.locator('.approval-detail').innerText(), /Requested by the agent through the MCP: everything tool mcp_everything_get-tiny-image/);
    await screenshot('3-permission');
    await chat.approvalButton('Allow').click();
    await chat.approval.waitFor({ state: 'hidden', timeout: 10_000 });

    const card = turn.card(IMAGE_TOOL);
    await chat.waitForCardStatus(card, 'succeeded', 60_000);
    assert.match(await chat.waitForAnswer(turn.answer(), 60_000), /MCP logo/);
    await chat.waitForIdle();
    await card.locator('summary').click();
    const image = card.locator('img.result-image');
    await image.waitFor({ state: 'visible', timeout: 10_000 });
    assert.match((await image.getAttribute('src')) ?? '', /^data:image\/png;base64,iVBORw0KGgo/);
    const size = await image.evaluate((el) => ({ w: (el as unknown as { naturalWidth: number }).naturalWidth, h: (el as unknown as { naturalHeight: number }).naturalHeight }));
    assert.deepEqual(size, { w: 20, h: 20 }, 'the image decodes in the chat');
    await chat.screenshot('mcp-servers-4-image-card');
    await screenshot('4-image-card');

    const requests = fake.requests.slice(before);
    assert.equal(requests.length, 3, `the endpoint got ${requests.length} requests for the turn`);
    const images = imageParts(requests[2].body.messages);
    assert.equal(images.length, 1, 'the request after the tool result carries one image');
    assert.match(images[0] ?? '', /^data:image\/png;base64,/);
  });
});
