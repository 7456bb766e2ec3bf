/**
 * A prompt answers exactly what it showed, in a real VS Code (code-server) driven by a real Chromium,
 * with prompts in the chat (the default): the scripted backend asks "Delete harmless.txt" as request
 * `x`; the user hides the chat; the backend starts a new session (the extension's replay cache is
 * cleared) and asks "Delete important.docx" under the same `x`. When the chat comes back it shows
 * the new prompt (before, the card restored from the view's saved state kept the old text, and
 * Allow approved the new delete), and Allow deletes only what the card named; the tool cards of the
 * two calls stay apart.
 * Screenshots go to test-results/approval-identity-*.png.
 *
 * Run alone: npm run build && npx mocha --no-config --require tsx/cjs --extension ts --timeout 300000 --exit test/e2e/approval-identity.e2e.test.ts
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import type { ScriptedBackend } from '../support/scripted-backend';
import { ChatDriver } from './support/chat-driver';
import { useScriptedVSCode } from './support/scripted-vscode';

describe('a prompt answers exactly what it showed (real VS Code, prompts in the chat)', function () {
  this.timeout(240_000);
  const session = useScriptedVSCode({
    name: 'approval-identity',
    allowBackgroundCalls: true,
    prepare: (ws) => {
      fs.writeFileSync(path.join(ws, 'harmless.txt'), 'old notes\n');
      fs.writeFileSync(path.join(ws, 'important.docx'), 'the thesis\n');
    },
  });
  let backend: ScriptedBackend;
  let page: Page;
  let workspace: string;
  let screenshot: (label: string) => Promise<Buffer>;
  let chat: ChatDriver;

  before(async () => {
    ({ backend, page, workspace, screenshot } = session());
    chat = new ChatDriver(page);
    await chat.open();
  });

  it('after the chat was hidden and a new session reused request x, the chat shows the new prompt, and Allow deletes only what it named', async () => {
    const message = chat.approval.locator('.approval-message');
    void backend.startCall('DeleteFile', { path: 'harmless.txt' }, { requestId: 'x' }).response.catch(() => undefined);
    await chat.approval.waitFor({ state: 'visible', timeout: 30_000 });
    assert.match(await message.innerText(), /^Delete harmless\.txt/);
    await screenshot('1-first-prompt');

    // The user goes to the Explorer: the chat's page is thrown away, its state saved.
    await page.locator('.activitybar [aria-label^="Explorer"]').first().click();
    await chat.approval.waitFor({ state: 'detached', timeout: 10_000 });

    // The backend forgets its sessions and drops the connection: the extension starts a new session.
    backend.sessions.clear();
    const hellos = backend.hellos.length;
    backend.dropClients();
    await backend.hello(hellos, 60_000);
    const from = backend.received.length;
    const second = backend.startCall('DeleteFile', { path: 'important.docx' }, { requestId: 'x' });
    await backend.waitFor((m) => m.type === 'clientToolProgress' && m.requestId === 'x' && m.status === 'awaiting-permission', 30_000, from);

    await chat.open();
    await chat.approval.waitFor({ state: 'visible', timeout: 30_000 });
    assert.match(await message.innerText(), /^Delete important\.docx/, 'the chat shows an old prompt for the new request');
    await screenshot('2-restored-prompt');
    await chat.approvalButton('Allow').click();
    const answer = await second.response;
    assert.equal(answer.success, true, answer.errorMessage);
    assert.equal(fs.existsSync(path.join(workspace, 'important.docx')), false);
    assert.equal(fs.existsSync(path.join(workspace, 'harmless.txt')), true, 'the file the first prompt named was deleted');
    // One card per call, not per request id: the first is cancelled with its session, the second ran.
    const cards = chat.cards('DeleteFile');
    assert.equal(await cards.count(), 2);
    await chat.waitForCardStatus(cards.nth(0), 'cancelled');
    await chat.waitForCardStatus(cards.nth(1), 'succeeded');
    await screenshot('3-allowed');
  });
});
