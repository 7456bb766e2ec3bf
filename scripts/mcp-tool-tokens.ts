/**
 * What listing the editor's tools costs an MCP client's model, flat (every tool in `tools/list`,
 * what the server does) against collapsed groups (one container tool per group, its tools listed
 * after the model expands it, as the backend protocol does). Tokens of the `tools/list` JSON,
 * o200k_base (gpt-tokenizer); clients render tools into their prompts in their own ways, so these
 * compare the two designs rather than give any client's exact bill.
 *
 *   npx tsx scripts/mcp-tool-tokens.ts
 */
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { listMcpTools } from '../src/core/mcpServer/mcpTools';
import { ToolRegistry } from '../src/core/registry';
import { BUILTIN_GROUPS, registerBuiltinGroups } from '../src/tools';

const registry = new ToolRegistry();
registerBuiltinGroups(registry);
const flat = listMcpTools(registry);
const tokens = (value: unknown): number => countTokens(JSON.stringify(value));

const containers = BUILTIN_GROUPS.map(({ group, tools }) => ({
  name: group.name,
  description: `${group.description} Call this to make its tools available: ${tools.map((t) => t.name).join(', ')}.`,
  inputSchema: { type: 'object', properties: {} },
}));
const rows: [string, number, number][] = [];
for (const { group } of BUILTIN_GROUPS) {
  const own = flat.filter((t) => t.annotations?.title?.endsWith(`(${group.name})`));
  rows.push([group.name, own.length, tokens({ tools: own })]);
}

console.log(`flat: ${flat.length} tools, ${tokens({ tools: flat })} tokens in every request`);
console.log(`collapsed: ${containers.length} container tools, ${tokens({ tools: containers })} tokens until a group is expanded`);
for (const [name, count, cost] of rows) console.log(`  expanding ${name}: +${count} tools, +${cost} tokens from then on, plus one extra model turn`);
