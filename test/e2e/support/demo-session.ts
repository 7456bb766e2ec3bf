/**
 * The set-up the UI tests of the offline demo model share: the chat's set-up (`useChatSession`) with
 * the extension on default settings (so it starts its bundled backend with the demo model), until the
 * chat names the demo model.
 */
import { useChatSession, type ChatSession } from './chat-driver';

export type DemoSession = ChatSession;

export function useDemoChatSession(prefix: string, settings: Record<string, unknown> = {}): DemoSession {
  return useChatSession(prefix, {
    settings: () => settings,
    startTimeoutMs: 120_000,
    ready: (chat) => chat.frame.getByText('Offline demo model').waitFor({ timeout: 30_000 }),
  });
}
