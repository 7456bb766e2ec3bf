/**
 * Asks the model for a summary of the turns that no longer fit: a separate request with no tools,
 * whose transcript is itself cut to fit the window. Any failure returns undefined and the caller
 * elides instead, so compaction never fails a run.
 */
import type { ChatMessage, ChatModel } from '../model/chatModel';
import { excerptByTokens } from './excerpt';
import { contentText, countTokens } from './tokens';

const SUMMARY_PROMPT =
  'Summarise the conversation below for the assistant that continues it. Keep the user\'s goals and instructions, decisions made, facts learned from tool results (file names, paths, values, errors) and open tasks. Be concise; write plain text, no preamble.';

export async function summarize(model: ChatModel, dropped: readonly ChatMessage[], inputTokens: number, outputTokens: number, signal: AbortSignal): Promise<string | undefined> {
  const transcript = dropped.map(render).join('\n\n');
  const content = excerptByTokens(transcript, inputTokens);
  let text = '';
  try {
    for await (const chunk of model.stream({ messages: [{ role: 'system', content: SUMMARY_PROMPT }, { role: 'user', content }], tools: [] }, signal)) {
      if (chunk.type === 'text') text += chunk.text;
    }
  } catch {
    return undefined;
  }
  text = text.trim();
  if (!text || signal.aborted) return undefined;
  const tokens = countTokens(text);
  return tokens > outputTokens ? excerptByTokens(text, outputTokens, tokens) : text;
}

function render(m: ChatMessage): string {
  if (m.role === 'tool') return `Result of ${m.toolName}${m.errorCode ? ` (error ${m.errorCode})` : ''}:\n${contentText(m.content)}`;
  if (m.role === 'assistant') {
    const calls = (m.toolCalls ?? []).map((c) => `Called ${c.name}(${c.arguments})`);
    return `Assistant: ${[m.content, ...calls].filter(Boolean).join('\n')}`;
  }
  return `${m.role === 'user' ? 'User' : 'System'}: ${m.content}`;
}
