/**
 * What GoToDefinition, GoToTypeDefinition, FindImplementations and FindReferences share: the
 * target resolved and the server asked in `prepare` (so a prompt can name the outside files whose
 * lines were asked for), the results placed, ordered and capped in `run`.
 */
import { CodedError, ErrorCode } from '../../protocol';
import type { LanguageToolsHost, LocationQuery } from '../../core/host';
import { jsonResult, type JsonSchema, type Preparation, type ToolContext, type ToolResult } from '../../core/tool';
import { DEFAULT_MAX_LOCATIONS, LOCATION_OPTIONS, locationResults, outsideTextPreparation, placeLocations, type Placed } from './locations';
import { resolveTarget, TARGET_PROPERTIES, type Target, type TargetArgs } from './symbolTarget';
import { arrayOf, BOOLEAN, INTEGER, objectOutput, STRING, STRINGS } from '../support/outputSchemas';

export interface LocationArgs extends TargetArgs {
  maxResults?: number;
  includeOutsideText?: boolean;
}

export interface LocationPreparation extends Preparation {
  target: Target;
  placed: Placed[];
}

export function locationParameters(): JsonSchema {
  return { type: 'object', properties: { ...TARGET_PROPERTIES, ...LOCATION_OPTIONS }, additionalProperties: false };
}

/** What `runLocations` answers. */
export const LOCATIONS_OUTPUT = objectOutput(
  {
    at: STRING,
    alsoNamed: STRINGS,
    locations: arrayOf(objectOutput({ location: STRING, text: STRING, outsideWorkspace: BOOLEAN, protected: BOOLEAN }, ['location'])),
    total: INTEGER,
    more: INTEGER,
    message: STRING,
    note: STRING,
  },
  ['at', 'locations', 'total'],
);

const WHAT: Record<LocationQuery, string> = {
  definition: 'the definitions',
  typeDefinition: 'the type definitions',
  implementation: 'the implementations',
  references: 'the references',
};

export async function prepareLocations(query: LocationQuery, args: LocationArgs, ctx: ToolContext<LanguageToolsHost>): Promise<LocationPreparation> {
  const target = await resolveTarget(args, ctx);
  const found = await ctx.host.locations(query, target.file.absolute, target.position);
  const placed = await placeLocations(found, ctx);
  const ask = args.includeOutsideText === true ? outsideTextPreparation(placed.slice(0, args.maxResults ?? DEFAULT_MAX_LOCATIONS), WHAT[query]) : undefined;
  return { target, placed, ...ask };
}

export async function runLocations(query: LocationQuery, args: LocationArgs, ctx: ToolContext<LanguageToolsHost>, prepared: LocationPreparation | undefined): Promise<ToolResult> {
  if (!prepared) throw new CodedError(ErrorCode.Internal, 'a Language tool ran without its preparation');
  const limit = args.maxResults ?? DEFAULT_MAX_LOCATIONS;
  const shown = prepared.placed.slice(0, limit);
  const locations = await locationResults(shown, ctx, prepared.forcePrompt === true && ctx.permissionGranted);
  const outside = prepared.placed.filter((p) => p.placement === 'outside').length;
  return jsonResult({
    at: prepared.target.at,
    ...(prepared.target.alsoNamed ? { alsoNamed: prepared.target.alsoNamed } : {}),
    locations,
    total: prepared.placed.length,
    ...(prepared.placed.length > limit ? { more: prepared.placed.length - limit } : {}),
    ...(locations.length === 0 ? { message: `The language server found no ${WHAT[query].replace(/^the /, '')} at ${prepared.target.at}.` } : {}),
    ...(outside > 0 && !(prepared.forcePrompt === true && ctx.permissionGranted)
      ? { note: `${outside} location${outside === 1 ? ' is' : 's are'} outside the workspace: shown without text (includeOutsideText asks the user to show them).` }
      : {}),
  });
}
