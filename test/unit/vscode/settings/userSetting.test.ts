import * as assert from 'node:assert/strict';
import { readRememberScope, type InspectableConfiguration } from '../../../../src/vscode/settings/userSetting';

/** A configuration whose layers the test sets, as VS Code's `inspect` reports them. */
function layers(values: { globalValue?: unknown; workspaceValue?: unknown; workspaceFolderValue?: unknown; defaultValue?: unknown }): InspectableConfiguration {
  return { inspect: <T>(key: string) => (key === 'permissions.rememberScope' ? (values as { globalValue?: T }) : undefined) };
}

describe('rememberScope from user settings only', () => {
  it('takes the user (global) value, else the default', () => {
    assert.equal(readRememberScope(layers({ globalValue: 'workspace', defaultValue: 'session' })), 'workspace');
    assert.equal(readRememberScope(layers({ defaultValue: 'session' })), 'session');
  });

  it('ignores workspace and workspace-folder values, whichever way they point', () => {
    assert.equal(readRememberScope(layers({ workspaceValue: 'workspace', defaultValue: 'session' })), 'session');
    assert.equal(readRememberScope(layers({ workspaceFolderValue: 'workspace', defaultValue: 'session' })), 'session');
    assert.equal(readRememberScope(layers({ globalValue: 'workspace', workspaceValue: 'session' })), 'workspace');
  });

  it('anything but "workspace" is session; nothing at all is session', () => {
    for (const v of ['WORKSPACE', 'global', 1, true, {}, null]) assert.equal(readRememberScope(layers({ globalValue: v })), 'session', String(v));
    assert.equal(readRememberScope({ inspect: () => undefined }), 'session');
  });
});
