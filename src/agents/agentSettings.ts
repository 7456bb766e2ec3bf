/**
 * The agents the user configured (`clientTools.agents`, read from user settings only: a workspace
 * must not choose a program the editor starts), entry by entry with zod: a name the chat shows, a
 * command (a path, or a name looked up on PATH; no shell), its arguments and extra environment.
 * A bad entry is skipped with the reason; the others stand.
 */
import { z } from 'zod';
import type { AgentLaunch } from './presetLaunch';

export interface AgentSpec {
  /** How the chat names it; also its id (unique among the agents on offer). */
  name: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  /** Set for an agent found from a preset rather than configured. */
  preset?: string;
  /** What the extension adds to the launch (a preset's, src/agents/presetLaunch.ts); none for an unknown agent. */
  launch?: AgentLaunch;
}

export const MAX_AGENTS = 32;
const MAX_NAME_CHARS = 64;

/** A name the chat can show as plain text: letters, digits, spaces and a few marks. */
const name = z.string().trim().min(1).max(MAX_NAME_CHARS).regex(/^[\p{L}\p{N}][\p{L}\p{N} ._()+-]*$/u, 'use letters, digits, spaces and . _ ( ) + -');
const noControl = (max: number) => z.string().max(max).regex(/^[^\u0000-\u001f\u007f]*$/, 'must not contain control characters');

const AgentEntry = z.object({
  name,
  command: noControl(4096).min(1),
  args: z.array(noControl(4096)).max(64).default([]),
  env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a variable name').max(128), noControl(32_768)).default({}),
}).strict();

export interface ParsedAgents {
  agents: AgentSpec[];
  /** One line per entry that was skipped, saying why. */
  problems: string[];
}

export function parseAgentSettings(value: unknown): ParsedAgents {
  if (value === undefined || value === null) return { agents: [], problems: [] };
  if (!Array.isArray(value)) return { agents: [], problems: ['clientTools.agents must be a list of agents'] };
  const agents: AgentSpec[] = [];
  const problems: string[] = [];
  value.slice(0, MAX_AGENTS).forEach((entry, i) => {
    const parsed = AgentEntry.safeParse(entry);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      problems.push(`clientTools.agents[${i}]: ${issue ? `${issue.path.join('.') || 'entry'}: ${issue.message}` : 'invalid'}`);
      return;
    }
    if (agents.some((a) => a.name.toLowerCase() === parsed.data.name.toLowerCase())) {
      problems.push(`clientTools.agents[${i}]: the name "${parsed.data.name}" is used already`);
      return;
    }
    agents.push({ name: parsed.data.name, command: parsed.data.command, args: parsed.data.args, env: parsed.data.env });
  });
  if (value.length > MAX_AGENTS) problems.push(`clientTools.agents: only the first ${MAX_AGENTS} agents are used`);
  return { agents, problems };
}
