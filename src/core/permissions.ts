/**
 * The permission gate: asks the user before a tool runs, one prompt at a time.
 *
 * Whether to ask is decided by the caller from the tool's local definition (and its preparation:
 * protected paths force a prompt); nothing in a request reaches this module except the request id.
 * Answers: allow (this call), allowSession (remember for this tool), deny. Dismissing the prompt,
 * a host error, and the prompt timeout all count as deny. A cancelled call closes its open prompt.
 *
 * Prompts are serialised: a second call waits in a queue until the first prompt is answered, so two
 * deletes never ask at once and answers cannot be clicked on the wrong prompt.
 */
import { Emitter, type Disposable, type Event } from './events';
import type { PermissionAnswer, PermissionPrompt } from './host';
import { silentLogger, type Logger } from './logger';
import { systemTimers, type Timers } from './timers';

/** Anything that can show a prompt; `IdeHost` is one. */
export interface PermissionPrompter {
  confirm(prompt: PermissionPrompt, signal: AbortSignal): Promise<PermissionAnswer | undefined>;
}

/** Durable memory for "allow for this session" when the remember scope is `workspace` (e.g. workspaceState). */
export interface PermissionStore {
  list(): readonly string[];
  add(toolName: string): void | Promise<void>;
  remove(toolName: string): void | Promise<void>;
  clear(): void | Promise<void>;
}

export type RememberScope = 'session' | 'workspace';

export interface RememberedPermission {
  toolName: string;
  scope: RememberScope;
}

export interface PermissionCheck {
  requestId: string;
  toolName: string;
  groupName: string;
  /** The one line naming the exact target. */
  message: string;
  detail?: string;
  /**
   * Whether a remembered choice may answer, and whether "allow for this session" is offered.
   * False for forced prompts (protected paths, whole folders).
   */
  rememberable: boolean;
  /** The call's signal: aborting it withdraws the request, queued or open. */
  signal: AbortSignal;
  /** Called once, when the call starts waiting for the user (before it is queued). */
  onWaiting?: () => void;
}

export type PermissionDecision =
  | { kind: 'allowed'; via: 'prompt' | 'remembered' }
  | { kind: 'denied'; via: 'user' | 'dismissed' | 'timeout' | 'error' }
  | { kind: 'cancelled' };

export interface PermissionGateOptions {
  prompter: PermissionPrompter;
  store?: PermissionStore;
  rememberScope?: RememberScope;
  /** An unanswered prompt counts as deny after this long. Default 5 minutes. */
  promptTimeoutMs?: number;
  /** How long to wait for the host to close a withdrawn prompt before showing the next. Default 1 s. */
  closeGraceMs?: number;
  logger?: Logger;
  timers?: Timers;
}

export interface PromptActivity {
  /** 1 while a prompt is open, else 0. */
  open: number;
  /** Calls waiting for their turn. */
  queued: number;
}

interface Pending {
  check: PermissionCheck;
  resolve: (d: PermissionDecision) => void;
  settled: boolean;
  detach: () => void;
}

export class PermissionGate implements Disposable {
  private readonly session = new Set<string>();
  private readonly queue: Pending[] = [];
  private active: Pending | undefined;
  private scope: RememberScope;
  private promptTimeoutMs: number;
  private readonly closeGraceMs: number;
  private readonly logger: Logger;
  private readonly timers: Timers;
  private readonly activity = new Emitter<PromptActivity>();
  /** Fires when a prompt opens or closes or the queue changes (status bar "awaiting permission"). */
  readonly onDidChangeActivity: Event<PromptActivity> = this.activity.event;

  constructor(private readonly options: PermissionGateOptions) {
    this.scope = options.rememberScope ?? 'session';
    this.promptTimeoutMs = options.promptTimeoutMs ?? 5 * 60_000;
    this.closeGraceMs = options.closeGraceMs ?? 1000;
    this.logger = options.logger ?? silentLogger;
    this.timers = options.timers ?? systemTimers;
  }

  /** An unanswered prompt shown from now on counts as deny after this long. */
  setPromptTimeout(ms: number): void {
    this.promptTimeoutMs = ms;
  }

  setRememberScope(scope: RememberScope): void {
    this.scope = scope;
  }

  /** Resolves when the user (or a remembered choice) decided, or the call was withdrawn. Never rejects. */
  check(check: PermissionCheck): Promise<PermissionDecision> {
    if (check.signal.aborted) return Promise.resolve({ kind: 'cancelled' });
    if (check.rememberable && this.isRemembered(check.toolName)) return Promise.resolve({ kind: 'allowed', via: 'remembered' });
    check.onWaiting?.();
    return new Promise((resolve) => {
      const pending: Pending = { check, resolve, settled: false, detach: () => {} };
      const onAbort = () => {
        const i = this.queue.indexOf(pending);
        if (i >= 0) {
          this.queue.splice(i, 1);
          this.emitActivity();
        }
        this.settle(pending, { kind: 'cancelled' });
      };
      check.signal.addEventListener('abort', onAbort, { once: true });
      pending.detach = () => check.signal.removeEventListener('abort', onAbort);
      this.queue.push(pending);
      this.emitActivity();
      this.pump();
    });
  }

  isRemembered(toolName: string): boolean {
    return this.session.has(toolName) || (this.options.store?.list().includes(toolName) ?? false);
  }

  remembered(): RememberedPermission[] {
    const out: RememberedPermission[] = [...this.session].map((toolName) => ({ toolName, scope: 'session' as const }));
    for (const toolName of this.options.store?.list() ?? []) out.push({ toolName, scope: 'workspace' });
    return out;
  }

  /** Forgets remembered choices for one tool, or all of them. */
  async forget(toolName?: string): Promise<void> {
    if (toolName === undefined) {
      this.session.clear();
      await this.options.store?.clear();
    } else {
      this.session.delete(toolName);
      await this.options.store?.remove(toolName);
    }
  }

  /** Withdraws every queued and open prompt (as cancelled). */
  dispose(): void {
    for (const p of this.queue.splice(0)) this.settle(p, { kind: 'cancelled' });
    if (this.active) this.settle(this.active, { kind: 'cancelled' });
    this.activity.dispose();
  }

  private pump(): void {
    if (this.active) return;
    const next = this.queue.shift();
    if (!next) return;
    this.active = next;
    void this.show(next).finally(() => {
      this.active = undefined;
      this.emitActivity();
      this.pump();
    });
  }

  private async show(pending: Pending): Promise<void> {
    const { check } = pending;
    // Someone may have said "allow for this session" to the same tool while this call waited.
    if (check.rememberable && this.isRemembered(check.toolName)) {
      this.settle(pending, { kind: 'allowed', via: 'remembered' });
      return;
    }
    this.emitActivity();
    const close = new AbortController();
    const onCallAbort = () => close.abort();
    check.signal.addEventListener('abort', onCallAbort, { once: true });
    let timedOut = false;
    const timer = this.timers.setTimeout(() => {
      timedOut = true;
      this.logger.warn('permission prompt timed out; counted as deny', { requestId: check.requestId, tool: check.toolName });
      this.settle(pending, { kind: 'denied', via: 'timeout' });
      close.abort();
    }, this.promptTimeoutMs);

    const prompt: PermissionPrompt = {
      requestId: check.requestId,
      toolName: check.toolName,
      groupName: check.groupName,
      message: check.message,
      ...(check.detail !== undefined ? { detail: check.detail } : {}),
      offerAllowSession: check.rememberable,
    };
    const answered = this.options.prompter.confirm(prompt, close.signal).then(
      (answer) => {
        if (close.signal.aborted && !timedOut) return; // withdrawn: the abort listener settled it
        this.settle(pending, this.decide(check, answer));
      },
      (error: unknown) => {
        this.logger.error('permission prompt failed; counted as deny', { requestId: check.requestId, tool: check.toolName, error: String(error) });
        this.settle(pending, { kind: 'denied', via: 'error' });
      },
    );
    // Wait for the host to close the prompt. If it was withdrawn (cancel, timeout), give the host a
    // short grace to close it, then move on even if it did not: a stuck host must not stall the queue.
    let graceTimer: unknown;
    let onClose = () => {};
    const grace = new Promise<void>((resolve) => {
      onClose = () => {
        graceTimer = this.timers.setTimeout(resolve, this.closeGraceMs);
      };
      close.signal.addEventListener('abort', onClose, { once: true });
    });
    await Promise.race([answered, grace]);
    close.signal.removeEventListener('abort', onClose);
    if (graceTimer !== undefined) this.timers.clearTimeout(graceTimer);
    this.timers.clearTimeout(timer);
    check.signal.removeEventListener('abort', onCallAbort);
    close.abort();
  }

  private decide(check: PermissionCheck, answer: PermissionAnswer | undefined): PermissionDecision {
    if (answer === 'allow') return { kind: 'allowed', via: 'prompt' };
    if (answer === 'allowSession') {
      if (check.rememberable) this.remember(check.toolName);
      return { kind: 'allowed', via: 'prompt' };
    }
    return { kind: 'denied', via: answer === 'deny' ? 'user' : 'dismissed' };
  }

  private remember(toolName: string): void {
    if (this.scope === 'workspace' && this.options.store) {
      void Promise.resolve(this.options.store.add(toolName)).catch((e: unknown) =>
        this.logger.error('could not store a remembered permission', { tool: toolName, error: String(e) }),
      );
    } else {
      this.session.add(toolName);
    }
  }

  private settle(pending: Pending, decision: PermissionDecision): void {
    if (pending.settled) return;
    pending.settled = true;
    pending.detach();
    pending.resolve(decision);
  }

  private emitActivity(): void {
    this.activity.fire({ open: this.active && !this.active.settled ? 1 : 0, queued: this.queue.length });
  }
}
