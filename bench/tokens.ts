/**
 * Token economy: the tokens the function definitions of one model request cost (counted with the
 * backend's tokenizer on the JSON the adapter sends), for the built-in groups collapsed into
 * containers, expanded, and flat (collapsing off), then again with a 100-tool group added. The
 * collapsed figure includes each container's description; the target is at least 80 % fewer
 * definition tokens collapsed than flat.
 */
import { functionTokens } from '../src/backend/context/tokens';
import { ClientToolState } from '../src/backend/toolset/toolState';
import { ToolRegistry } from '../src/core/registry';
import type { ToolGroupDefinition } from '../src/protocol';
import { BUILTIN_GROUPS } from '../src/tools';

export interface TokenCase {
  tools: number;
  collapsed: number;
  expanded: number;
  flat: number;
  /** 1 − collapsed / flat. */
  savedVsFlat: number;
}

export interface TokensResult {
  builtin: TokenCase;
  withHundred: TokenCase;
}

export function benchTokens(): TokensResult {
  const builtin = builtinGroups();
  return { builtin: measure(builtin), withHundred: measure([...builtin, hundredToolGroup()]) };
}

/** The built-in groups as the extension registers them. */
export function builtinGroups(): ToolGroupDefinition[] {
  const registry = new ToolRegistry();
  for (const g of BUILTIN_GROUPS) registry.register(g.group, g.tools);
  const groups = registry.definitions();
  registry.dispose();
  return groups;
}

function measure(groups: ToolGroupDefinition[]): TokenCase {
  const tokens = (collapsing: boolean, expanded: boolean) => {
    const state = new ClientToolState({ collapsing, instructions: '' }, groups, expanded ? groups.map((g) => g.name) : []);
    return state.functions().reduce((n, f) => n + functionTokens(f), 0);
  };
  const collapsed = tokens(true, false);
  const flat = tokens(false, false);
  return { tools: groups.reduce((n, g) => n + g.tools.length, 0), collapsed, expanded: tokens(true, true), flat, savedVsFlat: 1 - collapsed / flat };
}

/** A group such as an MCP server of a large service brings: 100 tools with ordinary descriptions and schemas. */
export function hundredToolGroup(): ToolGroupDefinition {
  const verbs = ['List', 'Get', 'Create', 'Update', 'Delete'];
  const things = ['Issue', 'Comment', 'Label', 'Milestone', 'Project', 'Release', 'Branch', 'Tag', 'Webhook', 'Secret', 'Runner', 'Workflow', 'Artifact', 'Package', 'Team', 'Member', 'Invite', 'Deployment', 'Environment', 'Discussion'];
  const tools = things.flatMap((thing) =>
    verbs.map((verb) => ({
      name: `${verb}${thing}`,
      description: `${verb} a ${thing.toLowerCase()} of the repository. Returns the ${thing.toLowerCase()} as JSON with its id, state, author and timestamps; fails with NOT_FOUND when it does not exist.`,
      parameters: {
        type: 'object',
        properties: {
          repository: { type: 'string', description: 'owner/name of the repository' },
          id: { type: 'integer', minimum: 1, description: `The ${thing.toLowerCase()}'s number` },
          fields: { type: 'array', items: { type: 'string' }, description: 'Fields to return; all when omitted' },
        },
        required: ['repository'],
        additionalProperties: false,
      },
    })),
  );
  return { name: 'Hosting', description: 'Issues, pull requests, releases and settings of the code hosting service.', tools } as ToolGroupDefinition;
}

