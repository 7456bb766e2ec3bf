/**
 * What the extension adds to each preset agent's launch so that its file and shell work comes to
 * the permission gate wherever the agent allows that: arguments, environment variables, files it
 * reads (written into the extension's own folder, never the user's configuration) and the `_meta`
 * of `session/new`. docs/AGENTS.md says, per preset, what the gate then sees and what the agent
 * still does on its own; test/agents/ checks each claim against the real agent.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { McpListingMode } from '../core/mcpServer/mcpGroups';
import type { EditReviewMode } from './editReview';

export interface AgentLaunch {
  /** Added after the command's own arguments. */
  args: readonly string[];
  /** Added to the agent's environment (a variable the user configured for the agent wins). */
  env: Readonly<Record<string, string>>;
  /** Written into the launch folder before the agent starts; `${launchDir}` in `args` and `env` is that folder. */
  files: Readonly<Record<string, string>>;
  /** `_meta` of `session/new`, `session/load` and `session/resume`. */
  sessionMeta?: Readonly<Record<string, unknown>>;
  /** How the editor's tools are listed to the agent over MCP (docs/AGENTS.md, "The editor's tools"). */
  mcpTools: McpListingMode;
  /**
   * The agent writes on its own once its edit is allowed, so the edit's permission request is the
   * per-hunk review (editReview.ts). `allow-whole`: every hunk kept allows the agent (its own write is
   * the whole proposal: opencode). `editor-writes`: the agent is never allowed; the editor writes what
   * was kept and tells it (Codex, whose patch would no longer apply to the file the review wrote).
   */
  reviewEditPermissions?: EditReviewMode;
  /**
   * The agent carries on after a denial and tells its model only that the call was cancelled: a Deny
   * with a reason ends its turn (`session/cancel`), so the chat sends the reason as the next prompt at
   * once (agentSession.ts) and its model's very next request carries it (Gemini CLI).
   */
  endTurnAtReasonedDeny?: boolean;
}

/** An agent the extension knows nothing about: its command as configured, the editor's tools flat. */
export const PLAIN_LAUNCH: AgentLaunch = { args: [], env: {}, files: {}, mcpTools: 'flat' };

/**
 * Claude Code's tools that act without the client (claude-code-acp routes Read, Write, Edit and Bash
 * through fs/* and terminal/*): the workspace search tools (the editor's FindFiles and SearchText
 * take their place, with the protected-file rules), the web, sub-agents and notebooks.
 */
const CLAUDE_UNROUTED_TOOLS = ['Glob', 'Grep', 'LS', 'WebFetch', 'WebSearch', 'Task', 'NotebookEdit', 'NotebookRead'];

/**
 * Gemini CLI's admin-tier policy (the highest tier: no user or workspace policy overrides it): every
 * built-in tool that reads, writes, searches, runs or fetches asks first, as a permission request.
 */
const GEMINI_POLICY = `# Written by Client Tools for the Gemini CLI it starts (--admin-policy); not the user's configuration.
[[rule]]
toolName = ["read_file", "write_file", "replace", "web_fetch", "google_web_search", "save_memory"]
decision = "ask_user"
priority = 999

[[rule]]
toolName = ["read_many_files", "list_directory", "glob", "grep_search", "search_file_content", "codebase_investigator"]
decision = "deny"
priority = 999

# A pattern on the arguments keeps Gemini CLI from allowing commands it deems safe (echo, ls, cat, ...).
[[rule]]
toolName = "run_shell_command"
argsPattern = ".*"
decision = "ask_user"
priority = 999
`;

/** opencode's permissions (merged over every config file, the workspace's included): ask before each of these. */
const OPENCODE_PERMISSION = {
  read: 'ask', edit: 'ask', glob: 'ask', grep: 'ask', list: 'ask', bash: 'ask', task: 'ask',
  webfetch: 'ask', websearch: 'ask', codesearch: 'ask', lsp: 'ask', external_directory: 'ask',
};

/**
 * The launch of each preset command, by its npm package. `mcpTools` is collapsed for the agents
 * that re-list the editor's tools on `list_changed` within the call that expands a group
 * (test/agents/collapsed-groups.agent.test.ts), flat for the ones that do not.
 */
export const PRESET_LAUNCHES: Readonly<Record<string, AgentLaunch>> = {
  '@zed-industries/claude-code-acp': {
    args: [],
    env: {},
    files: {},
    sessionMeta: { claudeCode: { options: { disallowedTools: CLAUDE_UNROUTED_TOOLS } } },
    mcpTools: 'flat',
  },
  '@agentclientprotocol/claude-agent-acp': {
    args: [],
    env: {},
    files: {},
    // No built-in tool at all: reads, writes, searches and commands are the editor's tools over MCP.
    sessionMeta: { claudeCode: { options: { tools: [] } } },
    mcpTools: 'collapsed',
  },
  '@google/gemini-cli': {
    args: ['--admin-policy', '${launchDir}/gemini-policy.toml'],
    env: {},
    files: { 'gemini-policy.toml': GEMINI_POLICY },
    mcpTools: 'collapsed',
    endTurnAtReasonedDeny: true,
  },
  '@zed-industries/codex-acp': {
    args: ['-c', 'approval_policy="untrusted"'],
    env: {},
    files: {},
    mcpTools: 'flat',
    reviewEditPermissions: 'editor-writes',
  },
  'opencode-ai': {
    args: [],
    env: { OPENCODE_PERMISSION: JSON.stringify(OPENCODE_PERMISSION) },
    files: {},
    mcpTools: 'collapsed',
    reviewEditPermissions: 'allow-whole',
  },
};

/**
 * Writes the launch's files into `launchDir` (created `0700`, each file `0600`, replaced whole) and
 * returns its arguments and environment with `${launchDir}` filled in.
 */
export function prepareLaunch(launch: AgentLaunch, launchDir: string): { args: string[]; env: Record<string, string> } {
  const names = Object.keys(launch.files);
  if (names.length > 0) {
    fs.mkdirSync(launchDir, { recursive: true, mode: 0o700 });
    for (const name of names) {
      const file = path.join(launchDir, path.basename(name));
      const temp = `${file}.${process.pid}.tmp`;
      fs.writeFileSync(temp, launch.files[name] ?? '', { mode: 0o600 });
      fs.renameSync(temp, file);
    }
  }
  const fill = (value: string) => value.split('${launchDir}').join(launchDir);
  return {
    args: launch.args.map(fill),
    env: Object.fromEntries(Object.entries(launch.env).map(([k, v]) => [k, fill(v)])),
  };
}
