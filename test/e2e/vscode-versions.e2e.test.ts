/**
 * What differs between VS Code 1.100 and the newest (CLIENT_TOOLS_VSCODE=newest), and that the test
 * setup handles both, shown in the VS Code the suite runs against:
 * - The newest workbench ignores the URL's `payload` (the extension under development) unless the
 *   smoke-test driver is on; the provisioning patches the test install (scripts/provision-code-server.mjs).
 *   Shown: Client Tools is loaded from this repository and activates.
 * - The newest reads machine-scoped settings (clientTools.backendUrl) in a remote window such as
 *   code-server only from the remote settings; 1.100 also read the user settings. The harness
 *   writes both. Shown: the extension connects to the backendUrl given as a setting, not to the
 *   bundled backend.
 * - The hello names the VS Code that runs, so the version under test is the one asked for.
 */
import assert from 'node:assert/strict';
import { startScriptedVSCode, type ScriptedVSCode } from './support/scripted-vscode';

describe('the VS Code under test (CLIENT_TOOLS_VSCODE)', function () {
  this.timeout(240_000);
  let session: ScriptedVSCode | undefined;

  after(async function () {
    this.timeout(60_000);
    await session?.stop();
  });

  it('loads the extension under development and gives it the machine-scoped backendUrl; its hello names that VS Code', async () => {
    session = await startScriptedVSCode({ name: 'versions', onAutomationLog: () => undefined });
    const { backend, vscode } = session;
    // Without the payload the extension is not loaded and no hello ever comes; without the remote
    // settings it connects to its bundled backend instead of this one.
    const hello = await backend.hello(0, 120_000);
    assert.equal(hello.client.name, 'client-tools-vscode');
    assert.match(hello.client.ide, new RegExp(`\\b${vscode.vscode.version.replace(/\./g, '\\.')}$`), `hello from ${hello.client.ide}, expected VS Code ${vscode.vscode.version} (${vscode.vscode.name})`);
    console.log(`      (${vscode.vscode.name}: ${hello.client.ide}, code-server ${vscode.vscode.codeServer} under Node ${vscode.vscode.node})`);
    await vscode.page.locator('.activitybar [aria-label^="Client Tools"]').first().waitFor({ timeout: 30_000 });
  });
});
