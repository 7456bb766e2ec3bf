/**
 * Whether a configured MCP server may start now. A server from the user's own settings starts; a
 * workspace server (its command written by whoever wrote the repository) starts only in a trusted
 * workspace and only once the user approved that exact launch; a launch the user declined in this
 * window waits for Restart MCP Servers.
 */
import type { McpServerConfig } from './config';

export type StartDecision =
  | { kind: 'start' }
  | { kind: 'ask' }
  | { kind: 'wait'; status: string; detail: string };

export interface StartFacts {
  workspaceTrusted: boolean;
  approved: boolean;
  declinedInThisWindow: boolean;
}

export const DECLINED_DETAIL = 'You declined to start this server; run "Client Tools: Restart MCP Servers" to be asked again.';

/** A launch whose approval does not fit the dialog in full (`launchApproval` in config.ts). */
export const TOO_LARGE_TO_APPROVE =
  'PROMPT_TOO_LARGE: what it would run (command line, folder, environment, or URL and headers) does not fit the approval dialog in full as shown, ' +
  'invisible characters spelled out, so it is not started. Shorten it, or configure the server in your user settings.';

export function startDecision(server: McpServerConfig, facts: StartFacts): StartDecision {
  if (server.source.kind === 'user') return { kind: 'start' };
  if (!facts.workspaceTrusted) return { kind: 'wait', status: 'needs a trusted workspace', detail: 'Workspace MCP servers start only in a trusted workspace.' };
  if (facts.approved) return { kind: 'start' };
  if (facts.declinedInThisWindow) return { kind: 'wait', status: 'not approved', detail: DECLINED_DETAIL };
  return { kind: 'ask' };
}
