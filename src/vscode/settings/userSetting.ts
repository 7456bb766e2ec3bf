/**
 * The one home for reading a setting from the user's own settings only. Settings that decide where
 * the extension connects or what the user agreed to (the backend URL, how long a permission is
 * remembered, background calls, protected patterns, other extensions' tools) ignore workspace and
 * folder values: a workspace's `.vscode/settings.json` is written by whoever wrote the repository,
 * and must not turn "until this window closes" into "in this workspace from now on".
 *
 * No `vscode` import, so the reading is tested in plain Node with a fake `inspect`.
 */

/** The part of `vscode.WorkspaceConfiguration` this module needs. */
export interface InspectableConfiguration {
  inspect<T>(key: string): { globalValue?: T; defaultValue?: T; workspaceValue?: T; workspaceFolderValue?: T } | undefined;
}

export type RememberScopeSetting = 'session' | 'workspace';

/** The user (global) value, else the default; workspace and folder values are ignored. */
export function userValue(c: InspectableConfiguration, key: string): unknown {
  const inspected = c.inspect<unknown>(key);
  return inspected?.globalValue ?? inspected?.defaultValue;
}

/** `clientTools.permissions.rememberScope` from user settings only; anything else is `session`. */
export function readRememberScope(c: InspectableConfiguration): RememberScopeSetting {
  const v = userValue(c, 'permissions.rememberScope');
  return v === 'workspace' ? 'workspace' : 'session';
}
