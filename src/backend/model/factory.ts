/**
 * Picks the adapter for a model config: Chat Completions or the Responses API (`api`), each on the
 * OpenAI or the Azure client (`provider`, chosen inside client.ts).
 */
import type { ChatModel } from './chatModel';
import type { OpenAIModelConfig } from './modelConfig';
import { OpenAIChatModel } from './openai';
import { ResponsesChatModel } from './responses';

export function createChatModel(config: OpenAIModelConfig): ChatModel {
  return config.api === 'responses' ? new ResponsesChatModel(config) : new OpenAIChatModel(config);
}
