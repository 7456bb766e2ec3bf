/**
 * What the editor's tools cost in one model request as a real agent rendered them: the agent's own
 * definitions of the editor's MCP tools in the request body (Anthropic `tools`, Gemini
 * `functionDeclarations`, OpenAI chat `tools`, Codex's Responses `namespace` tool), counted as
 * o200k_base tokens of their JSON. A provider's tokenizer counts differently; the same count both
 * ways compares flat and collapsed listings for that agent.
 */
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { AGENT_MCP_NAME } from '../../../src/agents/agentMcp';
import type { ModelRequest } from './script';

export interface EditorToolCost {
  /** The editor's tools (containers included) the request offered. */
  tools: number;
  tokens: number;
}

export function editorToolCost(request: ModelRequest): EditorToolCost {
  const definitions: unknown[] = [];
  let tools = 0;
  const ours = (name: unknown) => typeof name === 'string' && name.includes(AGENT_MCP_NAME);
  for (const entry of Array.isArray(request.body.tools) ? request.body.tools as Record<string, unknown>[] : []) {
    if (Array.isArray(entry.functionDeclarations)) {
      for (const d of entry.functionDeclarations as Record<string, unknown>[]) if (ours(d.name)) { definitions.push(d); tools += 1; }
    } else if (entry.type === 'namespace' && ours(entry.name) && Array.isArray(entry.tools)) {
      definitions.push(entry);
      tools += entry.tools.length;
    } else if (ours(entry.name) || ours((entry.function as Record<string, unknown> | undefined)?.name)) {
      definitions.push(entry);
      tools += 1;
    }
  }
  return { tools, tokens: definitions.length === 0 ? 0 : countTokens(JSON.stringify(definitions)) };
}
