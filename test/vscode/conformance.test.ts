/**
 * The conformance kit's `--serve` mode against the real extension in a real VS Code: the kit
 * listens as a backend, the extension is pointed at it (URL and token as a user would set them),
 * and every check of the report passes. Background calls are allowed here, since the kit calls
 * tools outside any chat run.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { serveForExtension } from '../../src/conformance/extension';
import { formatText } from '../../src/conformance/report';
import type { Report } from '../../src/conformance/report';
import type { ClientToolsApi } from '../../src/vscode/context';

const EXTENSION_ID = 'client-tools.client-tools';
const TOKEN = 'conformance-extension-host-token';

describe('the conformance kit (--serve) against the real extension', function () {
  this.timeout(120_000);
  let report: Report;

  before(async () => {
    const ext = vscode.extensions.getExtension<ClientToolsApi>(EXTENSION_ID);
    assert.ok(ext);
    await ext.activate();
    const config = vscode.workspace.getConfiguration('clientTools');
    // The fixture workspace's logo.png is the binary file the kit reads back.
    const { server, report: pending } = await serveForExtension({ host: '127.0.0.1', port: 0, token: TOKEN, connectMs: 60_000, waitMs: 20_000, readPath: 'logo.png' });
    await vscode.commands.executeCommand('clientTools.setBackendToken', TOKEN);
    await config.update('permissions.backgroundCalls', 'allow', vscode.ConfigurationTarget.Global);
    await config.update('backendUrl', server.url, vscode.ConfigurationTarget.Global);
    report = await pending;
  });

  after(async () => {
    const config = vscode.workspace.getConfiguration('clientTools');
    await config.update('backendUrl', undefined, vscode.ConfigurationTarget.Global);
    await config.update('permissions.backgroundCalls', undefined, vscode.ConfigurationTarget.Global);
  });

  it('passes every check of the report', () => {
    assert.equal(report.ok, true, formatText(report));
    assert.deepEqual(report.results.filter((r) => r.status !== 'pass').map((r) => r.id), [], formatText(report));
  });

  it('reads the workspace image back as a binary content item', () => {
    assert.match(report.results.find((r) => r.id === 'ext.binary-result')!.actual, /^image\/png, \d+ bytes/);
  });
});
