/**
 * Rewind (`truncateThread`): where a thread's history is cut so that the user message that started
 * a run, and everything after it, is gone. A message is found by the run id it carries
 * (chatModel.ts); one compacted into a summary or dropped by the history budget is not found.
 */
import type { ChatMessage } from '../model/chatModel';

/** The index of run `runId`'s user message in `history`, or -1 when the history does not hold it. */
export function rewindPoint(history: readonly ChatMessage[], runId: string): number {
  return history.findIndex((m) => m.role === 'user' && m.runId === runId);
}
