/** GetCallHierarchy: who calls a function (incoming) or what it calls (outgoing), where the language server offers a call hierarchy. */
import { jsonResult } from '../../core/tool';
import { defineLanguageTool } from '../support/toolGroup';
import { placeLocations, positionText } from './locations';
import { arrayOf, BOOLEAN, INTEGER, objectOutput, STRING, STRINGS } from '../support/outputSchemas';
import { resolveTarget, TARGET_PROPERTIES, type TargetArgs } from './symbolTarget';

interface CallHierarchyArgs extends TargetArgs {
  direction?: 'incoming' | 'outgoing';
  maxResults?: number;
}

export const DEFAULT_MAX_CALLS = 50;
export const MAX_CALLS = 500;
/** Call sites listed per caller or callee. */
const MAX_SITES = 20;

export const GetCallHierarchy = defineLanguageTool<CallHierarchyArgs>({
  name: 'GetCallHierarchy',
  description:
    'Who calls a function or method (direction "incoming", the default), or what it calls ("outgoing"), one level deep, where the language server offers a call hierarchy. ' +
    'Give path, line and column (1-based), or the symbol\'s name as symbol. Each entry has name, kind, "path:line:column" and the call sites.',
  parameters: {
    type: 'object',
    properties: {
      ...TARGET_PROPERTIES,
      direction: { type: 'string', enum: ['incoming', 'outgoing'], description: 'incoming: the callers; outgoing: the callees. Default incoming.' },
      maxResults: { type: 'integer', minimum: 1, maximum: MAX_CALLS, description: `Most callers or callees to return. Default ${DEFAULT_MAX_CALLS}.` },
    },
    additionalProperties: false,
  },
  requiresPermission: false,
  effects: { readOnly: true },
  declineStrategy: 'reject',
  // Without a call hierarchy at the position: only at, an empty calls and a message.
  outputSchema: objectOutput(
    {
      at: STRING,
      symbol: objectOutput({ name: STRING, kind: STRING, location: STRING }, ['name', 'kind', 'location']),
      direction: { enum: ['incoming', 'outgoing'] },
      calls: arrayOf(objectOutput({ name: STRING, kind: STRING, location: STRING, outsideWorkspace: BOOLEAN, callSites: STRINGS }, ['name', 'kind', 'location', 'callSites'])),
      total: INTEGER,
      more: INTEGER,
      message: STRING,
    },
    ['at', 'calls'],
  ),

  async run(args, ctx) {
    const target = await resolveTarget(args, ctx);
    const direction = args.direction ?? 'incoming';
    const hierarchy = await ctx.host.callHierarchy(target.file.absolute, target.position, direction);
    if (!hierarchy) return jsonResult({ at: target.at, calls: [], message: `The language server offers no call hierarchy at ${target.at}.` });
    const limit = args.maxResults ?? DEFAULT_MAX_CALLS;
    const placed = await placeLocations(hierarchy.calls.map((c) => c.symbol.location), ctx);
    const callOf = new Map(hierarchy.calls.map((c) => [c.symbol.location, c]));
    const [self] = await placeLocations([hierarchy.symbol.location], ctx);
    const calls = placed.slice(0, limit).map((p) => {
      const call = callOf.get(p.location)!;
      // Incoming call sites are in the caller's file; outgoing ones in the asked symbol's file.
      const sites = direction === 'incoming' ? p : self;
      return {
        name: call.symbol.name,
        kind: call.symbol.kind,
        location: positionText(p.display, p.location),
        ...(p.placement === 'outside' ? { outsideWorkspace: true } : {}),
        callSites: call.callSites.slice(0, MAX_SITES).map((range) => positionText(sites.display, { ...sites.location, range })),
      };
    });
    return jsonResult({
      at: target.at,
      symbol: { name: hierarchy.symbol.name, kind: hierarchy.symbol.kind, location: positionText(self.display, self.location) },
      direction,
      calls,
      total: placed.length,
      ...(placed.length > limit ? { more: placed.length - limit } : {}),
    });
  },
});
