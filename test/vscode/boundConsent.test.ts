/**
 * Consent bound to the object, in a real VS Code: while an OpenDiff review is open, the reviewed
 * file, or the folder holding it, is swapped for a symbolic link to a file outside the workspace.
 * Accepting must write nothing there: the extension answers TARGET_CHANGED. (The DeleteFile prompt
 * is a modal dialog this suite cannot click; test/e2e/bound-consent.e2e.test.ts clicks Allow on it
 * in the real workbench.)
 *
 * Named to sort first: the catalog suite leaves modal dialogs open at its end.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ScriptedBackend } from '../support/scripted-backend';
import { until, useScriptedConnection } from './support/scriptedConnection';

const TOKEN = 'bound-consent-test-token';
const DIFF_SCHEME = 'client-tools-diff';
const OUTSIDE_TEXT = 'outside the workspace: not for the agent\n';

function diffTabs(): vscode.Tab[] {
  return vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.scheme === DIFF_SCHEME);
}

describe('consent bound to the object in a real VS Code (OpenDiff)', function () {
  this.timeout(60_000);
  const connection = useScriptedConnection(TOKEN);
  let backend: ScriptedBackend;
  let workspace: string;
  let outside: string;
  const file = (rel: string) => path.join(workspace, rel);

  const send = (toolName: string, args: Record<string, unknown>): string => backend.invoke(toolName, args);

  before(() => {
    ({ backend, workspace } = connection());
    outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'client-tools-outside-')));
  });

  /** A new file name for every test: the editor may keep an earlier test's document loaded with other text. */
  let name = '';
  let round = 0;

  beforeEach(() => {
    name = `target${++round}.ts`;
    fs.rmSync(file('swap'), { recursive: true, force: true });
    fs.rmSync(file('swap.moved-away'), { recursive: true, force: true });
    fs.mkdirSync(file('swap'), { recursive: true });
    fs.writeFileSync(file(`swap/${name}`), 'export const value = 1;\n');
    fs.writeFileSync(path.join(outside, name), OUTSIDE_TEXT);
  });

  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  after(() => {
    fs.rmSync(file('swap'), { recursive: true, force: true });
    fs.rmSync(file('swap.moved-away'), { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
  });

  /** Opens a review of swap/<name>, runs `swap` while it is open, accepts, and returns the answer. */
  async function acceptAfter(swap: () => void) {
    const id = send('OpenDiff', { path: `swap/${name}`, newContent: 'export const value = 666; // from the agent\n' });
    await until('the diff editor', () => diffTabs()[0]);
    swap();
    assert.equal(await vscode.commands.executeCommand('clientTools.acceptDiff'), true);
    const res = await backend.first('clientToolInvokeResponse', (m) => m.requestId === id, 15_000);
    await until('the diff closed', () => diffTabs().length === 0);
    return res;
  }

  it('the reviewed file swapped for a link out while the review is open: Accept writes nothing outside (TARGET_CHANGED)', async () => {
    const res = await acceptAfter(() => {
      fs.renameSync(file(`swap/${name}`), file(`swap/${name}.moved-away`));
      fs.symlinkSync(path.join(outside, name), file(`swap/${name}`));
    });
    assert.equal(res.success, false, 'the accepted change was written through the link');
    assert.equal(res.errorCode, 'TARGET_CHANGED', res.errorMessage);
    assert.equal(fs.readFileSync(path.join(outside, name), 'utf8'), OUTSIDE_TEXT);
    assert.equal(fs.readFileSync(file(`swap/${name}.moved-away`), 'utf8'), 'export const value = 1;\n');
  });

  it('the folder holding it swapped for a link out while the review is open: Accept writes nothing outside (TARGET_CHANGED)', async () => {
    const res = await acceptAfter(() => {
      fs.renameSync(file('swap'), file('swap.moved-away'));
      fs.symlinkSync(outside, file('swap'));
    });
    assert.equal(res.success, false, 'the accepted change was written through the swapped folder');
    assert.equal(res.errorCode, 'TARGET_CHANGED', res.errorMessage);
    assert.equal(fs.readFileSync(path.join(outside, name), 'utf8'), OUTSIDE_TEXT);
    fs.unlinkSync(file('swap'));
  });

  it('without a swap, the same review accepted writes the file (the check refuses only what changed)', async () => {
    const res = await acceptAfter(() => undefined);
    assert.equal(res.success, true, res.errorMessage);
    assert.equal(fs.readFileSync(file(`swap/${name}`), 'utf8'), 'export const value = 666; // from the agent\n');
  });
});
