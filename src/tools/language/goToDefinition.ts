/** GoToDefinition: go to the definition of a symbol (functions, classes, variables, imports) as the language server knows it (the language server's answer, as path:line:column with each line's text). */
import { defineLanguageTool } from '../support/toolGroup';
import { LOCATIONS_OUTPUT, locationParameters, prepareLocations, runLocations, type LocationArgs, type LocationPreparation } from './locationQuery';

export const GoToDefinition = defineLanguageTool<LocationArgs, LocationPreparation>({
  name: 'GoToDefinition',
  description:
    'Go to the definition of a symbol (functions, classes, variables, imports) as the language server knows it. Give path, line and column (1-based), or the symbol\'s name as symbol (with path to say which file). ' +
    'Returns "path:line:column" locations with the text of each line, workspace files first. Locations outside the workspace come without their text.',
  parameters: locationParameters(),
  requiresPermission: false,
  effects: { readOnly: true },
  declineStrategy: 'reject',
  outputSchema: LOCATIONS_OUTPUT,
  prepare: (args, ctx) => prepareLocations('definition', args, ctx),
  run: (args, ctx, prepared) => runLocations('definition', args, ctx, prepared),
});
