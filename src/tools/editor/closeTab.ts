/** CloseTab: closes the editor tabs showing a workspace file; tabs with unsaved changes stay open. */
import { jsonResult } from '../../core/tool';
import { defineEditorTool } from '../support/toolGroup';
import { pathOnlyParameters } from '../support/parameters';
import { INTEGER, objectOutput, STRING } from '../support/outputSchemas';

interface CloseTabArgs {
  path: string;
}

export const CloseTab = defineEditorTool<CloseTabArgs>({
  name: 'CloseTab',
  description:
    'Close the editor tabs that show a workspace file (in every editor group). Tabs with unsaved changes are left open and counted in keptDirty.',
  parameters: pathOnlyParameters('Workspace-relative path of the file.'),
  requiresPermission: false,
  effects: { readOnly: false, destructive: false },
  declineStrategy: 'reject',
  outputSchema: objectOutput({ path: STRING, closed: INTEGER, keptDirty: INTEGER, message: STRING }, ['path', 'closed', 'keptDirty']),
  // Closing a tab changes no file and loses nothing (dirty tabs stay), so it stays on in restricted mode.
  availableWhenUntrusted: true,

  async run(args, ctx) {
    const target = await ctx.resolvePath(args.path);
    const result = await ctx.host.closeTabs(target.absolute);
    return jsonResult({
      path: target.relative,
      closed: result.closed,
      keptDirty: result.keptDirty,
      ...(result.closed === 0 && result.keptDirty === 0 ? { message: 'No tab showed this file.' } : {}),
      ...(result.keptDirty > 0 ? { message: 'A tab with unsaved changes was left open; use SaveDocument first to close it.' } : {}),
    });
  },
});
