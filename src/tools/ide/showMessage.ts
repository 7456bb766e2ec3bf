/**
 * ShowMessage: a notification with optional buttons. Without buttons it is information and the call
 * ends once it is shown (VS Code hides a toast after a while; a run must not wait for someone to
 * close it). With buttons it is a question and waits for the answer.
 */
import { CodedError, ErrorCode } from '../../protocol';
import { jsonResult } from '../../core/tool';
import { sanitizeForNotification } from '../../core/uiText';
import { defineIdeTool } from '../support/toolGroup';
import { BOOLEAN, objectOutput } from '../support/outputSchemas';

interface ShowMessageArgs {
  message: string;
  severity?: 'info' | 'warning' | 'error';
  buttons?: string[];
}

export const MAX_MESSAGE_CHARS = 2000;
export const MAX_BUTTONS = 5;

export const ShowMessage = defineIdeTool<ShowMessageArgs>({
  name: 'ShowMessage',
  description:
    'Show the user a notification in the editor, optionally with up to 5 buttons. Without buttons it returns {"shown": true} at once. ' +
    'With buttons it waits for the answer, given in the notification or in the chat: {"chosen": "<button label>"}, or {"chosen": null} when the user dismissed it or gave up. Plain text only: links are not clickable.',
  parameters: {
    type: 'object',
    properties: {
      message: { type: 'string', minLength: 1, maxLength: 10_000, description: 'The text to show (plain text).' },
      severity: { type: 'string', enum: ['info', 'warning', 'error'], description: 'Default info.' },
      buttons: {
        type: 'array',
        maxItems: MAX_BUTTONS,
        uniqueItems: true,
        items: { type: 'string', minLength: 1, maxLength: 100 },
        description: 'Button labels, at most 5.',
      },
    },
    required: ['message'],
    additionalProperties: false,
  },
  requiresPermission: false,
  effects: { readOnly: false, destructive: false },
  declineStrategy: 'reject',
  outputSchema: objectOutput({ shown: BOOLEAN, chosen: { type: ['string', 'null'] } }),
  availableWhenUntrusted: true,

  async run(args, ctx) {
    const text = sanitizeForNotification(args.message, MAX_MESSAGE_CHARS);
    if (text.trim() === '') throw new CodedError(ErrorCode.InvalidArguments, 'message: is empty once control characters and links are removed');
    const labels: string[] = (args.buttons ?? []).map((b) => sanitizeForNotification(b, 100));
    if (labels.some((l) => l.trim() === '')) throw new CodedError(ErrorCode.InvalidArguments, 'buttons: a label is empty once sanitised');
    if (new Set(labels).size !== labels.length) throw new CodedError(ErrorCode.InvalidArguments, 'buttons: two labels are the same once sanitised');
    if (labels.length === 0) {
      // Nothing to answer: do not hold the run until the toast is closed or hidden.
      void ctx.host.showMessage(text, args.severity ?? 'info', labels).then(undefined, () => undefined);
      return jsonResult({ shown: true });
    }
    // A question: the chat shows it too, with its buttons and Give up, so a hidden toast never leaves the run waiting unseen.
    const chosen = await ctx.host.showMessage(text, args.severity ?? 'info', labels, { recordId: ctx.recordId, signal: ctx.signal });
    // Map back to the label the model sent; a host answer that is not one of the buttons counts as none.
    const index = chosen === undefined ? -1 : labels.indexOf(chosen);
    return jsonResult({ chosen: index >= 0 ? (args.buttons ?? [])[index] : null });
  },
});
