/**
 * Rewind to here, on a user message that started a run: one button under the message. The
 * extension shows what will change and asks before anything is done (src/vscode/reviews/rewind.ts).
 */

/** The button row for a message that started run `runId`; none for a steer or a message no run has claimed. */
export function rewindControl(runId: string | undefined): HTMLElement | null {
  if (runId === undefined) return null;
  const row = document.createElement('div');
  row.className = 'answer-actions user-actions';
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'rewind-here secondary';
  button.dataset.runId = runId;
  button.title = 'Restore the files this message and the later ones changed, and drop them from the conversation (you see what changes first)';
  button.textContent = 'Rewind to here';
  row.append(button);
  return row;
}
