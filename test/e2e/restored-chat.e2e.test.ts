/**
 * A window that opens with the chat view already open (a reload, or another window of a user who had
 * the chat open) activates the extension for the view at once: VS Code derives `onView:<id>` from
 * the contributed view (package.json names only onStartupFinished), and its extension host activates
 * the extension on that event before any onStartupFinished extension, then the extension connects.
 * What bench section 13's warm figure relies on; ordering only, no time bounds.
 *
 * Run alone: npm run build && npx mocha --no-config --require tsx/cjs --extension ts --timeout 300000 --exit test/e2e/restored-chat.e2e.test.ts
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ChatDriver } from './support/chat-driver';
import { startVSCode, waitUntil, workspaceScripts, type Harness } from './support/vscode';

/** Every file under `dir` whose name is `name`. */
function filesNamed(dir: string, name: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) filesNamed(p, name, out);
    else if (entry.name === name) out.push(p);
  }
  return out;
}

describe('A window that opens with the chat view open (real VS Code)', function () {
  this.timeout(300_000);
  let harness: Harness | undefined;
  let cleanup: (() => void) | undefined;

  after(async () => {
    await harness?.stop();
    cleanup?.();
  });

  it('activates the extension on onView:clientTools.chat before the onStartupFinished extensions, and connects', async () => {
    const copy = (await workspaceScripts()).copyFixtureWorkspace();
    cleanup = copy.cleanup;
    harness = await startVSCode({ workspace: copy.workspace, startTimeoutMs: 120_000 });
    const { page, tempDir } = harness;
    await new ChatDriver(page).open();
    const earlierHosts = new Set(filesNamed(tempDir, 'remoteexthost.log'));

    await page.reload({ waitUntil: 'domcontentloaded' });
    // The new window's extension host: its log, once VS Code has started its onStartupFinished extensions.
    const hostLog = await waitUntil('the new extension host\'s onStartupFinished activations', async () => {
      const file = filesNamed(tempDir, 'remoteexthost.log').find((f) => !earlierHosts.has(f));
      const text = file === undefined ? '' : readFileSync(file, 'utf8');
      return /activationEvent: 'onStartupFinished'/.test(text) && /_doActivateExtension client-tools\.client-tools/.test(text) ? { file, text } : undefined;
    }, 120_000);
    const lines = hostLog.text.split('\n');
    const ours = lines.findIndex((l) => /_doActivateExtension client-tools\.client-tools,/.test(l));
    const firstEventually = lines.findIndex((l) => /activationEvent: 'onStartupFinished'/.test(l));
    assert.match(lines[ours], /activationEvent: 'onView:clientTools\.chat'/, lines[ours]);
    assert.ok(ours < firstEventually, `activated after VS Code's onStartupFinished extensions:\n${lines.slice(0, firstEventually + 2).join('\n')}`);

    const extensionLog = path.join(path.dirname(hostLog.file!), 'client-tools.client-tools', 'Client Tools.log');
    await waitUntil('the reloaded window\'s extension connected', async () => /Connected to /.test(readFileSync(extensionLog, 'utf8')), 60_000);
  });
});
