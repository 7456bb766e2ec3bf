/**
 * What the agent is told about the tools the user switched off (Deny (Off) in the Tool Groups view):
 * such a tool is not offered to the backend at all, so without this the model can only say it has
 * no tool for the request. Sent as the `switched-off-tools` context item, which the backend puts in
 * its system prompt. No `vscode` import, so unit tests cover it in plain Node.
 */

export const SWITCHED_OFF_CONTEXT_NAME = 'switched-off-tools';
/** Tools named; the rest are counted (names are at most 64 characters, so the text stays small). */
export const MAX_NAMED_TOOLS = 50;
export const NOTHING_SWITCHED_OFF = 'No editor tool is switched off by the user.';

export interface SwitchedOffTool {
  name: string;
  group: string;
}

/** The context item's text: one `- Tool (Group)` line per tool, and what to tell the user. */
export function describeSwitchedOff(tools: readonly SwitchedOffTool[]): string {
  if (tools.length === 0) return NOTHING_SWITCHED_OFF;
  const named = tools.slice(0, MAX_NAMED_TOOLS).map((t) => `- ${t.name} (${t.group})`);
  const more = tools.length - named.length;
  return [
    'The user switched these editor tools off in the Tool Groups view (Deny (Off)), so they are not offered to you:',
    ...named,
    ...(more > 0 ? [`- and ${more} more`] : []),
    'When a request needs one of them, do not do it another way: tell the user that the tool is switched off in the Tool Groups view, ' +
      'and that right-clicking it there and choosing Ask Every Time or Allow Without Asking turns it on again.',
  ].join('\n');
}
