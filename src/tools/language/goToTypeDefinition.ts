/** GoToTypeDefinition: go to the definition of a symbol's type (the language server's answer, as path:line:column with each line's text). */
import { defineLanguageTool } from '../support/toolGroup';
import { LOCATIONS_OUTPUT, locationParameters, prepareLocations, runLocations, type LocationArgs, type LocationPreparation } from './locationQuery';

export const GoToTypeDefinition = defineLanguageTool<LocationArgs, LocationPreparation>({
  name: 'GoToTypeDefinition',
  description:
    'Go to the definition of a symbol\'s type (the interface or class of a variable, parameter or property). Give path, line and column (1-based), or the symbol\'s name as symbol (with path to say which file). ' +
    'Returns "path:line:column" locations with the text of each line, workspace files first. Locations outside the workspace come without their text.',
  parameters: locationParameters(),
  requiresPermission: false,
  effects: { readOnly: true },
  declineStrategy: 'reject',
  outputSchema: LOCATIONS_OUTPUT,
  prepare: (args, ctx) => prepareLocations('typeDefinition', args, ctx),
  run: (args, ctx, prepared) => runLocations('typeDefinition', args, ctx, prepared),
});
