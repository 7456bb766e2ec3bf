/** Shell commands shown to the user for approval (RunInTerminal, RunTask): plain text only, so what is shown is what runs, and the one text that shows them. */
import { CodedError, ErrorCode } from '../../protocol';
import { consent, consentLines, type ConsentText } from '../../core/consent/consentText';

/** Characters that can make a command look like something else: bidi controls, invisible marks, C0 controls including CR (tab and newline allowed). */
const DECEPTIVE = /[\u0000-\u0008\u000b-\u001f\u007f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;

/**
 * The command as a code span for a prompt's title (CommonMark's rule, which the chat renders: the
 * fence one backtick longer than the longest run in it, padded when it starts or ends with one), so
 * a command holding backticks shows whole: "Run `` echo `date` `` in app?".
 */
export function codeSpan(command: string): string {
  const longest = Math.max(0, ...(command.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const pad = longest > 0 ? ' ' : '';
  return `${fence}${pad}${command}${pad}${fence}`;
}

/** Refuses a command holding characters that could hide what it does. */
export function assertPlainCommand(command: string, what: string): void {
  if (DECEPTIVE.test(command)) {
    throw new CodedError(ErrorCode.InvalidArguments, `${what}: contains control or invisible characters that could hide what it does; send plain text`);
  }
}

/**
 * What the user approves before a command runs: the command, the folder it runs in and its time
 * limit. The command is one value: its line breaks show as ⏎, so no line of it can pass for the
 * folder or the time limit.
 */
export function commandConsent(command: string, folder: string, timeoutSeconds: number): ConsentText {
  return consentLines([
    consent`Command: ${command}`,
    consent`Folder: ${folder}`,
    consent`Time limit: ${timeoutSeconds} s. It runs with your permissions, like anything you type in a terminal.`,
  ], '\n\n');
}
