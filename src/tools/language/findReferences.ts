/** FindReferences: find every reference (usage) of a symbol across the workspace, its declaration included (the language server's answer, as path:line:column with each line's text). */
import { defineLanguageTool } from '../support/toolGroup';
import { LOCATIONS_OUTPUT, locationParameters, prepareLocations, runLocations, type LocationArgs, type LocationPreparation } from './locationQuery';

export const FindReferences = defineLanguageTool<LocationArgs, LocationPreparation>({
  name: 'FindReferences',
  description:
    'Find every reference (usage) of a symbol across the workspace, its declaration included. Give path, line and column (1-based), or the symbol\'s name as symbol (with path to say which file). ' +
    'Returns "path:line:column" locations with the text of each line, workspace files first. Locations outside the workspace come without their text.',
  parameters: locationParameters(),
  requiresPermission: false,
  effects: { readOnly: true },
  declineStrategy: 'reject',
  outputSchema: LOCATIONS_OUTPUT,
  prepare: (args, ctx) => prepareLocations('references', args, ctx),
  run: (args, ctx, prepared) => runLocations('references', args, ctx, prepared),
});
