/**
 * The permission prompts open in the chat, by the id the permission gate minted for each. An answer
 * from the chat is taken only for a prompt that is open now, with the digest of the text its card
 * showed, and only an answer that prompt offered. Anything else (a card restored from an old saved
 * state, a prompt withdrawn meanwhile, a request id a new session used again) is refused and changes
 * nothing. Plain Node: src/vscode/prompts/chatPrompts.ts puts the prompts on screen.
 */
import { Emitter, type Event } from '../../base/events';
import type { ChatApproval } from '../../protocol/webview';
import type { PermissionAnswer, PermissionPrompt, PermissionReply } from '../host';

/** Why an answer was refused, or that it was taken. */
export type AnswerVerdict = 'accepted' | 'not-open' | 'digest-mismatch' | 'not-offered';

interface Entry {
  prompt: PermissionPrompt;
  offered: ReadonlySet<PermissionAnswer>;
  resolve: (reply: PermissionReply | undefined) => void;
}

/** The prompt as the chat's card shows it: the gate's texts and choices as they are, with its id and digest. */
export function chatApprovalOf(prompt: PermissionPrompt): ChatApproval {
  return {
    promptId: prompt.promptId,
    digest: prompt.digest,
    requestId: prompt.requestId,
    toolName: prompt.toolName,
    groupName: prompt.groupName,
    message: prompt.message,
    detail: prompt.detail,
    choices: prompt.choices.map((c) => ({ answer: c.answer, label: c.label })),
  };
}

export class OpenPrompts {
  /** Oldest first; the chat shows the oldest (the gate asks one at a time). */
  private readonly open = new Map<string, Entry>();
  private readonly changes = new Emitter<void>();
  /** A prompt opened or closed. */
  readonly onDidChange: Event<void> = this.changes.event;

  /** Whether a prompt waits for an answer. */
  get size(): number {
    return this.open.size;
  }

  /** The prompt the chat shows: the oldest open one. */
  first(): PermissionPrompt | undefined {
    return this.open.values().next().value?.prompt;
  }

  prompts(): PermissionPrompt[] {
    return [...this.open.values()].map((e) => e.prompt);
  }

  /** Opens `prompt`; resolves with the user's reply, or undefined once `signal` aborts or all are closed. */
  add(prompt: PermissionPrompt, signal: AbortSignal): Promise<PermissionReply | undefined> {
    if (signal.aborted) return Promise.resolve(undefined);
    const offered = new Set<PermissionAnswer>(['allow', 'deny', ...prompt.choices.map((c) => c.answer)]);
    return new Promise((resolve) => {
      const onAbort = () => this.close(prompt.promptId, undefined);
      signal.addEventListener('abort', onAbort, { once: true });
      this.open.set(prompt.promptId, {
        prompt,
        offered,
        resolve: (reply) => {
          signal.removeEventListener('abort', onAbort);
          resolve(reply);
        },
      });
      this.changes.fire();
    });
  }

  /** The chat's answer to the prompt `promptId`, whose card showed text with `digest`. */
  answer(promptId: string, digest: string, answer: PermissionAnswer, reason?: string): AnswerVerdict {
    const entry = this.open.get(promptId);
    if (!entry) return 'not-open';
    if (entry.prompt.digest !== digest) return 'digest-mismatch';
    if (!entry.offered.has(answer)) return 'not-offered';
    this.close(promptId, answer === 'deny' && reason?.trim() ? { answer, reason } : { answer });
    return 'accepted';
  }

  /** Closes every open prompt as dismissed (deny). */
  clear(): void {
    for (const id of [...this.open.keys()]) this.close(id, undefined);
  }

  dispose(): void {
    this.clear();
    this.changes.dispose();
  }

  private close(promptId: string, reply: PermissionReply | undefined): void {
    const entry = this.open.get(promptId);
    if (!entry) return;
    this.open.delete(promptId);
    this.changes.fire();
    entry.resolve(reply);
  }
}
