/**
 * What a run taken over from a stopped replica still owes the model: the calls of the thread's last
 * batch with no result in the store (results are saved together once the batch ends, so a replica
 * that stopped during a batch leaves all of them unanswered).
 */
import type { ChatMessage, ToolCallRequest } from '../model/chatModel';

export function unansweredCalls(messages: readonly ChatMessage[]): ToolCallRequest[] {
  let last = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role === 'assistant' && m.toolCalls?.length) {
      last = i;
      break;
    }
    if (m.role === 'user') return [];
  }
  if (last < 0) return [];
  const assistant = messages[last] as Extract<ChatMessage, { role: 'assistant' }>;
  const answered = new Set(messages.slice(last + 1).flatMap((m) => (m.role === 'tool' ? [m.toolCallId] : [])));
  return (assistant.toolCalls ?? []).filter((c) => !answered.has(c.id));
}
