/** GetOpenEditors: the editor tabs that are open, which one is active and which have unsaved changes. */
import { jsonResult } from '../../core/tool';
import { locateInWorkspace } from '../support/workspacePaths';
import { defineWorkspaceTool } from '../support/toolGroup';
import { NO_PARAMETERS } from '../support/parameters';
import { BOOLEAN, INTEGER, objectOutput, STRING } from '../support/outputSchemas';

export const GetOpenEditors = defineWorkspaceTool<Record<string, never>>({
  name: 'GetOpenEditors',
  description:
    'List the editor tabs open in the editor: workspace-relative path (or label for other tabs), whether it is the active tab, ' +
    'whether it has unsaved changes (dirty), its language, and its kind (text, diff, notebook, other).',
  parameters: NO_PARAMETERS,
  requiresPermission: false,
  effects: { readOnly: true },
  declineStrategy: 'reject',
  outputSchema: objectOutput({ editors: { type: 'array', items: objectOutput({ path: STRING, label: STRING, outsideWorkspace: BOOLEAN, active: BOOLEAN, dirty: BOOLEAN, language: STRING, kind: STRING, group: INTEGER, preview: BOOLEAN }, ['label', 'active', 'dirty', 'kind', 'group']) }, count: INTEGER }, ['editors', 'count']),
  availableWhenUntrusted: true,

  async run(_args, ctx) {
    const folders = ctx.host.workspaceFolders();
    const editors = (await ctx.host.openEditors()).map((e) => {
      const where = e.path !== undefined ? locateInWorkspace(e.path, folders) : undefined;
      return {
        ...(where ? { path: where.display } : {}),
        label: e.label,
        ...(e.path !== undefined && !where ? { outsideWorkspace: true } : {}),
        active: e.active,
        dirty: e.dirty,
        ...(e.language !== undefined ? { language: e.language } : {}),
        kind: e.kind,
        group: e.group,
        ...(e.preview ? { preview: true } : {}),
      };
    });
    return jsonResult({ editors, count: editors.length });
  },
});
