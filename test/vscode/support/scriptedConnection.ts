/**
 * The extension under test, connected to a scripted backend in the extension host's own process
 * (test/support/scripted-backend.ts): the token goes through the Set Backend Token command, the URL
 * and the background-call policy through user settings, as a user would set them.
 */
import * as vscode from 'vscode';
import type { ClientToolsApi } from '../../../src/vscode/context';
import { ScriptedBackend } from '../../support/scripted-backend';

/** `publisher.name` from package.json. */
export const EXTENSION_ID = 'client-tools.client-tools';

export interface ScriptedConnection {
  api: ClientToolsApi;
  backend: ScriptedBackend;
  /** The fixture workspace copy's folder. */
  workspace: string;
}

/** Polls `probe` until it returns something truthy; fails with `what` after `timeoutMs`. */
export async function until<T>(what: string, probe: () => T | undefined | false, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * For the tests of the enclosing `describe`: before the first, activates the extension and connects
 * it to a new scripted backend that accepts `token`; after the last, closes the editors the tests
 * left open, puts the settings back and closes the backend. Returns the connection (call it from a
 * hook or a test).
 */
export function useScriptedConnection(token: string): () => ScriptedConnection {
  let connection: ScriptedConnection | undefined;
  const settings = () => vscode.workspace.getConfiguration('clientTools');

  before(async () => {
    const ext = vscode.extensions.getExtension<ClientToolsApi>(EXTENSION_ID);
    if (!ext) throw new Error(`${EXTENSION_ID} is not among the loaded extensions`);
    const api = await ext.activate();
    const workspace = vscode.workspace.workspaceFolders![0].uri.fsPath;
    const backend = await ScriptedBackend.start({ token, defaultTimeoutMs: 10_000 });
    connection = { api, backend, workspace };
    await vscode.commands.executeCommand('clientTools.setBackendToken', token);
    // The scripted backend calls tools with no chat run (background calls); these tests let them through.
    await settings().update('permissions.backgroundCalls', 'allow', vscode.ConfigurationTarget.Global);
    await settings().update('backendUrl', backend.url, vscode.ConfigurationTarget.Global);
    await backend.first('hello');
    await until('connected', () => api.connectionState() === 'connected');
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await settings().update('backendUrl', undefined, vscode.ConfigurationTarget.Global);
    await settings().update('permissions.backgroundCalls', undefined, vscode.ConfigurationTarget.Global);
    await connection?.backend.close();
  });

  return () => {
    if (!connection) throw new Error('not connected yet (use the connection from a hook or a test)');
    return connection;
  };
}
