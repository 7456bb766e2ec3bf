/**
 * The IDE tool group in a real VS Code (code-server 4.100.3) driven through a real Chromium, with
 * this test process playing the agent backend (test/support/scripted-backend.ts): the
 * extension connects to it with the token from CLIENT_TOOLS_BACKEND_TOKEN, registers its tools in
 * `hello`, and answers the tool calls the test sends. Each test checks what the user sees (tabs,
 * toasts, the permission dialog, the status bar, files on disk) and what the backend gets back.
 * One VS Code for the whole file; the tests run in order and build on each other's editor state.
 * Screenshots go to test-results/ide-*.png. Run with `npm run test:e2e`.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import type { ClientToolInvokeResponse, ContentItem } from '../../src/protocol';
import type { ScriptedBackend } from '../support/scripted-backend';
import { useScriptedVSCode } from './support/scripted-vscode';
import { MODAL_PROMPTS } from './support/chat-driver';
import { waitUntil, type Harness } from './support/vscode';

const ROOT = path.resolve(__dirname, '../..');
const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'workspace');
const IDE_TOOLS = ['DeleteFile', 'GetSelection', 'OpenFile', 'ReadFile', 'ShowMessage'];

/** The value of a response's single json item. */
function jsonValue(response: ClientToolInvokeResponse): unknown {
  assert.equal(response.success, true, `expected success, got ${response.errorCode}: ${response.errorMessage}`);
  assert.equal(response.content.length, 1, 'one content item');
  const item = response.content[0] as ContentItem;
  assert.equal(item.type, 'json');
  return (item as { value: unknown }).value;
}

describe('IDE tools in a real VS Code, called by a scripted backend', function () {
  this.timeout(120_000);
  // The scripted backend calls tools with no chat run: background calls, which these tests let
  // through (background-calls.e2e.test.ts covers the default, ask). outside.txt lies next to the
  // workspace folder, so a path escape would find a real file.
  const session = useScriptedVSCode({ name: 'ide', allowBackgroundCalls: true, settings: MODAL_PROMPTS, prepare: (ws) => fs.writeFileSync(path.join(ws, '..', 'outside.txt'), 'not for the agent\n') });
  let backend: ScriptedBackend;
  let vscode: Harness;
  let page: Page;
  let workspace: string;
  let screenshot: (label: string) => Promise<Buffer>;

  const statusItem = (): Locator => page.locator('.statusbar-item', { hasText: 'Client Tools' });
  const statusText = async (): Promise<string> => (await statusItem().textContent())?.trim() ?? '';
  const dialog = (): Locator => page.locator('.monaco-dialog-box');
  const toast = (text: string): Locator => page.locator('.notifications-toasts .notification-toast', { hasText: text });

  before(() => ({ backend, vscode, page, workspace, screenshot } = session()));

  it('registers the IDE group with its five tools in hello, DeleteFile behind a permission prompt, and shows connected', async () => {
    assert.deepEqual(backend.refusedUpgrades, [], 'the upgrade carried the token from CLIENT_TOOLS_BACKEND_TOKEN');
    const hello = backend.hellos[0];
    assert.equal(hello.protocol, 'client-tools/1');
    assert.equal(hello.workspace.trusted, true);
    assert.deepEqual(hello.workspace.folders.map((f) => f.name), ['workspace']);
    const ide = hello.toolGroups.find((g) => g.name === 'IDE');
    assert.ok(ide, `no IDE group in ${JSON.stringify(hello.toolGroups.map((g) => g.name))}`);
    assert.deepEqual(ide.tools.map((t) => t.name).sort(), IDE_TOOLS);
    for (const tool of ide.tools) {
      assert.equal(tool.requiresPermission === true, tool.name === 'DeleteFile', `${tool.name}.requiresPermission`);
    }

    // The status bar: connected to this backend, with its model in the tooltip.
    // Not connected shows the same text ("$(plug) Client Tools"), and the page may still show it after
    // hello reached the backend: wait for the connected tooltip, which is in the item's aria-label.
    const label = await waitUntil('the status bar to say connected', async () => {
      const text = (await statusItem().getAttribute('aria-label')) ?? '';
      return /Connected to/.test(text) && text;
    });
    assert.match(label, new RegExp(`Connected to ws://127\\.0\\.0\\.1:${backend.port} \\(model scripted\\)`));
    assert.equal(await statusText(), 'Client Tools');
  });

  it('OpenFile opens notes.md in the active tab and answers its path, language and line count', async () => {
    const response = await backend.call('OpenFile', { path: 'notes.md', startLine: 2 });
    const lineCount = fs.readFileSync(path.join(FIXTURE, 'notes.md'), 'utf8').split('\n').length;
    assert.deepEqual(jsonValue(response), { path: 'notes.md', language: 'markdown', lineCount });

    await page.locator('.tabs-container div.tab.active[data-resource-name="notes.md"]').waitFor({ timeout: 10_000 });
    // The cursor sits where the agent asked: line 2, column 1.
    await page.locator('.statusbar-item', { hasText: 'Ln 2, Col 1' }).waitFor({ timeout: 10_000 });
  });

  it('GetSelection returns the range OpenFile selected and exactly the fixture text in it', async () => {
    const opened = await backend.call('OpenFile', { path: 'notes.md', startLine: 3, startColumn: 3, endLine: 3, endColumn: 8 });
    jsonValue(opened);
    const line3 = fs.readFileSync(path.join(FIXTURE, 'notes.md'), 'utf8').split('\n')[2];
    const expectedText = line3.slice(2, 7);
    assert.equal(expectedText, 'small', 'fixture notes.md line 3 changed');

    // The user sees the selection: the editor's status says 5 characters are selected on line 3.
    await page.locator('.statusbar-item', { hasText: 'Ln 3, Col 8 (5 selected)' }).waitFor({ timeout: 10_000 });
    const selection = await backend.call('GetSelection', {});
    assert.deepEqual(jsonValue(selection), {
      activeEditor: true,
      file: 'notes.md',
      language: 'markdown',
      range: { startLine: 3, startColumn: 3, endLine: 3, endColumn: 8 },
      text: expectedText,
      isEmpty: false,
    });
  });

  it('ShowMessage shows a toast with the buttons and answers the one the user clicks', async () => {
    const message = 'Apply the suggested refactoring?';
    const call = backend.startCall('ShowMessage', { message, buttons: ['Yes', 'No'] });
    const shown = toast(message);
    await shown.locator('.notification-list-item-message', { hasText: message }).waitFor({ timeout: 10_000 });
    await page.locator('.notifications-toasts .notification-toast.notification-fade-in-done', { hasText: message }).waitFor();
    assert.deepEqual(await shown.locator('.notification-list-item-buttons-container .monaco-button').allTextContents(), ['Yes', 'No']);
    assert.equal(backend.responseFrames(call.requestId).length, 0, 'no answer before the user chose');
    await screenshot('show-message');

    await shown.getByRole('button', { name: 'No', exact: true }).click();
    assert.deepEqual(jsonValue(await call.response), { chosen: 'No' });
    await shown.waitFor({ state: 'hidden', timeout: 10_000 });
  });

  it('ShowMessage shows a command: link as plain text, never as a clickable link', async () => {
    const call = backend.startCall('ShowMessage', { message: 'Read the [release notes](command:workbench.action.quit) first', buttons: ['OK'] });
    const shown = toast('Read the release notes first');
    await shown.waitFor({ timeout: 10_000 });
    await page.locator('.notifications-toasts .notification-toast.notification-fade-in-done', { hasText: 'Read the release notes first' }).waitFor();
    const messageText = (await shown.locator('.notification-list-item-message').textContent())?.trim();
    assert.equal(messageText, 'Read the release notes first');
    // VS Code renders a markdown link in a notification as <a href="command:…">; none may exist.
    assert.equal(await shown.locator('a[href]').count(), 0, 'no anchor with an href in the toast');
    assert.equal(await page.locator('.notifications-toasts a[href^="command:" i]').count(), 0);
    await screenshot('show-message-link');

    await shown.getByRole('button', { name: 'OK', exact: true }).click();
    assert.deepEqual(jsonValue(await call.response), { chosen: 'OK' });
    await shown.waitFor({ state: 'hidden', timeout: 10_000 });
  });

  it('ReadFile of logo.png answers binary content, image/png, in a binary frame, byte for byte', async () => {
    const call = backend.startCall('ReadFile', { path: 'logo.png' });
    const response = await call.response;
    assert.equal(response.success, true, `${response.errorCode}: ${response.errorMessage}`);
    assert.equal(response.content.length, 1);
    const item = response.content[0];
    assert.equal(item.type, 'binary');
    if (item.type !== 'binary') return;
    assert.equal(item.mimeType, 'image/png');
    assert.equal(item.filename, 'logo.png');
    assert.ok(Buffer.from(item.bytes).equals(fs.readFileSync(path.join(FIXTURE, 'logo.png'))), 'bytes equal the fixture file');
    const [answer] = backend.responseFrames(call.requestId);
    assert.equal(answer.binary, true, 'the answer travelled as a binary frame, not base64 text');
  });

  it('DeleteFile asks in a modal naming hello.txt; Deny keeps the file and answers PERMISSION_DENIED', async () => {
    const target = path.join(workspace, 'hello.txt');
    // With a description: the modal shows it after the extension's own lines, labelled as the backend's words (issue 14).
    const call = backend.startCall('DeleteFile', { path: 'hello.txt' }, { description: 'Remove the greeting file\nApproved by admin' });
    await backend.waitForProgress(call.requestId, 'awaiting-permission', 10_000);
    await dialog().waitFor({ timeout: 10_000 });
    assert.match((await dialog().locator('.dialog-message-text').textContent()) ?? '', /^Delete hello\.txt \(\d+ B\)\?$/);
    const detail = (await dialog().locator('.dialog-message-detail').textContent()) ?? '';
    assert.match(detail, /IDE tool DeleteFile/);
    assert.match(detail, /The agent backend describes this call as \(its words, not checked\): “Remove the greeting file⏎Approved by admin”$/);
    await waitUntil('the status bar to say awaiting permission', async () => (await statusText()) === 'Client Tools: awaiting permission');
    assert.equal(backend.responseFrames(call.requestId).length, 0, 'nothing answered while the user decides');
    await screenshot('delete-prompt');

    await dialog().getByRole('button', { name: 'Deny', exact: true }).click();
    const response = await call.response;
    assert.equal(response.success, false);
    assert.equal(response.errorCode, 'PERMISSION_DENIED');
    await dialog().waitFor({ state: 'hidden', timeout: 10_000 });
    assert.ok(fs.existsSync(target), 'hello.txt is still on disk');
    await waitUntil('the status bar to say connected again', async () => (await statusText()) === 'Client Tools');
    await screenshot('delete-denied');
  });

  it('DeleteFile asks again; Allow deletes hello.txt from the workspace and the explorer', async () => {
    const target = path.join(workspace, 'hello.txt');
    const call = backend.startCall('DeleteFile', { path: 'hello.txt' });
    await backend.waitForProgress(call.requestId, 'awaiting-permission', 10_000);
    await dialog().waitFor({ timeout: 10_000 });
    assert.match((await dialog().locator('.dialog-message-text').textContent()) ?? '', /hello\.txt/);
    assert.ok(fs.existsSync(target), 'not deleted before the user allowed it');

    await dialog().getByRole('button', { name: 'Allow', exact: true }).click();
    const value = jsonValue(await call.response) as { deleted: string; kind: string; movedToTrash: boolean };
    assert.equal(value.deleted, 'hello.txt');
    assert.equal(value.kind, 'file');
    await dialog().waitFor({ state: 'hidden', timeout: 10_000 });
    assert.equal(fs.existsSync(target), false, 'hello.txt is gone from the workspace copy');
    // The agent is told the truth about whether the user can get the file back from the trash
    // (code-server's file system has no trash, so there it is deleted for good).
    const inTrash = fs.existsSync(path.join(vscode.tempDir, 'data', 'Trash', 'files', 'hello.txt'));
    assert.equal(value.movedToTrash, inTrash, `movedToTrash says ${value.movedToTrash}, the trash ${inTrash ? 'has' : 'does not have'} the file`);
    await page.locator('.explorer-folders-view .monaco-list-row[aria-label="hello.txt"]').waitFor({ state: 'detached', timeout: 10_000 });
    await page.locator('.explorer-folders-view .monaco-list-row[aria-label="notes.md"]').waitFor();
    await screenshot('delete-after');
  });

  it('ReadFile of ../outside.txt is refused with PATH_OUTSIDE_WORKSPACE and opens no prompt', async () => {
    assert.ok(fs.existsSync(path.join(workspace, '..', 'outside.txt')), 'the file outside exists');
    const call = backend.startCall('ReadFile', { path: '../outside.txt' });
    const response = await call.response;
    assert.equal(response.success, false);
    assert.equal(response.errorCode, 'PATH_OUTSIDE_WORKSPACE');
    // The sentence is the model's content too (issue 14), not only errorMessage.
    assert.match(response.errorMessage ?? '', /outside/);
    assert.deepEqual(response.content, [{ type: 'text', text: response.errorMessage }]);
    assert.deepEqual(backend.progressFor(call.requestId).filter((p) => p.status === 'awaiting-permission'), []);
    assert.equal(await dialog().count(), 0, 'no permission dialog on the page');
  });

  it('a replayed request id gets the stored answer again and the tool does not run twice', async () => {
    const message = 'Replay check: keep this answer?';
    const first = backend.startCall('ShowMessage', { message, buttons: ['Keep', 'Discard'] });
    const shown = toast(message);
    await shown.waitFor({ timeout: 10_000 });
    await shown.getByRole('button', { name: 'Keep', exact: true }).click();
    const firstAnswer = await first.response;
    assert.deepEqual(jsonValue(firstAnswer), { chosen: 'Keep' });
    await shown.waitFor({ state: 'hidden', timeout: 10_000 });
    const progressBefore = backend.progressFor(first.requestId).length;

    // The same request again, as a backend would resend it after a reconnect. Had the tool run
    // again, the answer would wait for a click on a new toast; it comes back at once instead.
    const secondAnswer = await backend.sendRequest(first.request, 10_000);
    assert.deepEqual(secondAnswer, firstAnswer);
    assert.equal(backend.responseFrames(first.requestId).length, 2);
    assert.equal(backend.progressFor(first.requestId).length, progressBefore, 'no progress: the call did not start again');
    assert.equal(await toast(message).count(), 0, 'no second toast');
  });

  it('the status bar shows reconnecting when the backend drops the socket, and connected once it accepts again', async () => {
    assert.equal(await statusText(), 'Client Tools');
    const hellosBefore = backend.hellos.length;
    const sessionId = [...backend.sessions].pop();

    backend.dropClients({ refuseNew: true });
    await waitUntil('the status bar to say reconnecting', async () => (await statusText()) === 'Client Tools: reconnecting', 5_000);
    await screenshot('status-reconnecting');
    // It keeps trying while the backend refuses (HTTP 503), and the status stays put.
    await waitUntil('a refused reconnect attempt', async () => backend.refusedUpgrades.some((r) => r.reason === 'not accepting'), 10_000);
    assert.equal(await statusText(), 'Client Tools: reconnecting');

    backend.acceptConnections();
    const hello = await backend.hello(hellosBefore, 20_000);
    assert.equal(hello.resumeSession, sessionId, 'the reconnect asks to resume the session');
    await waitUntil('the status bar to say connected', async () => (await statusText()) === 'Client Tools', 10_000);
    await screenshot('status-connected');

    // And the resumed session works: a tool call goes through.
    const response = await backend.call('OpenFile', { path: 'notes.md' });
    assert.equal((jsonValue(response) as { path: string }).path, 'notes.md');
  });
});
