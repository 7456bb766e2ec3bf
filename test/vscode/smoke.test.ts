import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as vscode from 'vscode';

/** `publisher.name` from package.json. */
const EXTENSION_ID = 'client-tools.client-tools';

describe('Client Tools in a real VS Code', () => {
  it('is installed under its id and activates without throwing', async () => {
    const extension = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(extension, `${EXTENSION_ID} is not among the loaded extensions`);
    await extension.activate();
    assert.equal(extension.isActive, true);
  });

  it('opens the fixture workspace as the only folder', async () => {
    const expected = process.env.CLIENT_TOOLS_TEST_WORKSPACE;
    assert.ok(expected, 'CLIENT_TOOLS_TEST_WORKSPACE is not set; run through npm run test:vscode');
    const folders = vscode.workspace.workspaceFolders ?? [];
    assert.equal(folders.length, 1);
    assert.equal(fs.realpathSync(folders[0].uri.fsPath), fs.realpathSync(expected));

    const hello = await vscode.workspace.fs.readFile(vscode.Uri.joinPath(folders[0].uri, 'hello.txt'));
    assert.match(Buffer.from(hello).toString('utf8'), /^Hello from the Client Tools fixture workspace\./);
  });
});
