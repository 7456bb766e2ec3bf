/**
 * A stored history made fit to send again. A backend stopped in the middle of a tool batch leaves
 * an assistant message whose calls have no results; chat APIs refuse such a history, so each
 * missing result is supplied as an error the model can read.
 */
import { ErrorCode } from '../../protocol';
import type { ChatMessage } from '../model/chatModel';
import type { StoredToolState } from './conversationStore';
import type { ClientToolState } from '../toolset/toolState';

export function restoredHistory(messages: readonly ChatMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  let i = 0;
  while (i < messages.length) {
    const m = messages[i++];
    if (m.role === 'system') continue;
    out.push(m);
    if (m.role !== 'assistant' || !m.toolCalls?.length) continue;
    const answered = new Set<string>();
    while (i < messages.length && messages[i].role === 'tool') {
      const result = messages[i++] as Extract<ChatMessage, { role: 'tool' }>;
      answered.add(result.toolCallId);
      out.push(result);
    }
    for (const call of m.toolCalls) {
      if (answered.has(call.id)) continue;
      out.push({
        role: 'tool',
        toolCallId: call.id,
        toolName: call.name,
        content: [{ type: 'text', text: `Error (${ErrorCode.Disconnected}): the backend stopped before ${call.name} finished; its result is unknown.` }],
        errorCode: ErrorCode.Disconnected,
      });
    }
  }
  return out;
}

/** What of a thread's tool state is kept: its expanded groups and active skills. */
export function storedToolState(tools: ClientToolState): StoredToolState {
  const { groups } = tools.snapshot();
  return {
    expanded: groups.filter((g) => g.expanded).map((g) => g.name),
    skills: groups.flatMap((g) => g.skills.filter((s) => s.active).map((s) => ({ group: g.name, skill: s.name }))),
  };
}

/** Expands again what the thread had expanded, where the groups are still registered. */
export function reapplyToolState(tools: ClientToolState, state: StoredToolState): void {
  for (const group of state.expanded) tools.expand(group);
  for (const { group, skill } of state.skills) tools.activateSkill(group, skill);
}
