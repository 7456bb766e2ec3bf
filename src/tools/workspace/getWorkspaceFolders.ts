/** GetWorkspaceFolders: the open workspace folders and whether the workspace is trusted. */
import { jsonResult } from '../../core/tool';
import { defineWorkspaceTool } from '../support/toolGroup';
import { NO_PARAMETERS } from '../support/parameters';
import { BOOLEAN, objectOutput, STRING } from '../support/outputSchemas';

export const GetWorkspaceFolders = defineWorkspaceTool<Record<string, never>>({
  name: 'GetWorkspaceFolders',
  description:
    'List the workspace folders open in the editor (name and absolute path) and whether the workspace is trusted. ' +
    'In a workspace with several folders, paths given to other tools start with the folder name.',
  parameters: NO_PARAMETERS,
  requiresPermission: false,
  effects: { readOnly: true },
  declineStrategy: 'reject',
  outputSchema: objectOutput({ folders: { type: 'array', items: objectOutput({ name: STRING, path: STRING }, ['name', 'path']) }, multiRoot: BOOLEAN, trusted: BOOLEAN }, ['folders', 'multiRoot', 'trusted']),
  availableWhenUntrusted: true,

  async run(_args, ctx) {
    const folders = ctx.host.workspaceFolders();
    return jsonResult({
      folders: folders.map((f) => ({ name: f.name, path: f.path })),
      multiRoot: folders.length > 1,
      trusted: ctx.host.isTrusted(),
    });
  },
});
