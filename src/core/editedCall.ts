/**
 * Edit before allow: on the chat's permission prompt the user may change the one argument a tool
 * names as editable (RunInTerminal's command, a single-target tool's path) instead of allowing the
 * agent's value. The edited call is a new call as far as consent goes: its arguments are validated
 * against the tool's schema, `prepare` runs again on them (paths, protected files, the target's
 * identity), and the prompt is shown again with the edited call's own text, through the one consent
 * builder, saying what the agent proposed. Only an Allow of that prompt runs it, with exactly those
 * arguments and that preparation; the card and the model are told both values.
 */
import { CodedError, type ClientToolInvokeResponse } from '../protocol';
import { MAX_EDITED_VALUE } from '../protocol/webview';
import { consent, consentLines, consentValue } from './consent/consentText';
import type { EditableArgument } from './consent/presenter';
import type { ClientTool, Preparation } from './tool';

/** What the user changed: the argument, the agent's value and the user's. */
export interface CallEdit {
  argument: string;
  proposed: string;
  ran: string;
}

/** The argument the prompt may offer to edit: the tool's editable one, when the call holds a string there the card can carry. */
export function editableOf(tool: ClientTool, args: Record<string, unknown>): EditableArgument | undefined {
  const argument = tool.editableArgument;
  if (argument === undefined) return undefined;
  const value = args[argument];
  if (typeof value !== 'string' || value.length > MAX_EDITED_VALUE) return undefined;
  return { argument, value };
}

/** The call's arguments with the user's value in place of the agent's. */
export function editedArguments(args: Record<string, unknown>, edit: CallEdit): Record<string, unknown> {
  return { ...args, [edit.argument]: edit.ran };
}

/** The edit refused by the schema or by `prepare`: the same code, saying it was the user's value and nothing ran. */
export function refusedEdit(edit: CallEdit, error: CodedError): CodedError {
  return new CodedError(error.code, `the user's edit of ${edit.argument} (“${consentValue(edit.ran)}”, invisible characters spelled out) was refused: ${error.message}; nothing ran`);
}

/**
 * The prompt for the edited call: its own line and detail from `prepare`, marked as the user's edit,
 * with the agent's proposal; never answered by a remembered grant, and not editable again.
 */
export function editedPreparation(tool: ClientTool, prepared: Preparation | undefined, edit: CallEdit): Preparation {
  return {
    ...prepared,
    prompt: `Your edit: ${prepared?.prompt ?? `Allow ${tool.name}?`}`,
    detail: consentLines([
      consent`You edited this call. ${edit.argument} as you wrote it: ${edit.ran}`,
      consent`The agent proposed: ${edit.proposed}`,
      prepared?.detail,
    ], '\n\n'),
    forcePrompt: true,
  };
}

/** What the model reads first in the edited call's result: both values, and that the result is of the user's. */
export function editNote(edit: CallEdit): string {
  return `The user edited this call before allowing it: ${edit.argument} was ${JSON.stringify(edit.proposed)} as you proposed it, and ran as ${JSON.stringify(edit.ran)}. What follows is the result of the edited call.`;
}

/** The answer of an edited call with the note in front (and a word of it in the error message of a failure, which is short). */
export function withEditNote(response: ClientToolInvokeResponse, edit: CallEdit): ClientToolInvokeResponse {
  const note = editNote(edit);
  return {
    ...response,
    content: [{ type: 'text', text: note }, ...response.content],
    ...(response.errorMessage !== undefined ? { errorMessage: clip(`The user edited ${edit.argument} before allowing it (the content says how): ${response.errorMessage}`) } : {}),
  };
}

function clip(message: string): string {
  return message.length > 10_000 ? `${message.slice(0, 9_990)}…` : message;
}
