/**
 * The permission gate: the one queue of prompts. It answers from the user's policies and remembered
 * grants when they may answer, refuses a barrage (promptBarrage.ts), and otherwise shows one prompt
 * at a time through the presenter the extension wired in. Dismissing a prompt, a presenter error and
 * the prompt timeout all count as deny; a cancelled call closes its open prompt.
 *
 * Whether to ask is decided by the consent module (consent.ts) from the tool's local definition; the
 * gate only builds the prompt's whole text (consentText.ts), measures it for the presenter's surface
 * (PROMPT_TOO_LARGE when it does not fit in full) and gives it an id and a digest that an answer in
 * the chat must name  (shownPrompt.ts).
 * A call with an editable argument (RunInTerminal's command, a single-target tool's path) offers
 * Edit in the chat: the user's value comes back as an `edited` decision, never as an allow; the
 * dispatcher checks the edited call and asks about it again (src/core/editedCall.ts).
 */
import { createHash, randomUUID } from 'node:crypto';
import { CodedError, ErrorCode } from '../../protocol';
import { approvalDigestInput } from '../../protocol/webview';
import { Emitter, type Disposable, type Event } from '../../base/events';
import { grantCovers, grantKey, makeGrant, type Grant, type GrantKind, type GrantTarget, type RememberScope } from './grants';
import { MAX_DENY_REASON_CHARS, type EditableArgument, type PermissionAnswer, type PermissionChoice, type PermissionPrompt, type PromptPresenter } from './presenter';
import { silentLogger, type Logger } from '../../base/logger';
import { DEFAULT_BARRAGE_POLICY, PromptBarrage, type BarragePolicy } from './promptBarrage';
import { systemTimers, type Timers } from '../timers';
import { consent, consentLines, consentRows, consentValue, fitConsent, type ConsentSurface, type ConsentText, type FittedConsent } from './consentText';

/** Columns a remember button's label may take as shown; a longer one (a long path) is not offered. */
export const MAX_CHOICE_LABEL_COLUMNS = 200;

/** The button that opens the card's field for the editable argument. */
export const EDIT_LABEL = 'Edit…';

export type { Grant, GrantTarget, RememberScope } from './grants';
export type { BarragePolicy } from './promptBarrage';

/**
 * A tool's policy, set by the user in the Tool Groups view: `ask` (the default), `allow` (answers
 * the prompts a remembered grant could answer; protected paths, commands and background requests
 * still ask), `deny` (refused without a prompt).
 */
export type ToolPolicy = 'ask' | 'allow' | 'deny';

/** Where the gate reads each tool's policy (src/vscode/toolGroups/toolPolicies.ts keeps them), by the tool's identity. */
export interface ToolPolicies {
  /** `toolKey`: the tool's identity key; `toolName`: its model-facing name (for policies stored before identities). */
  get(toolKey: string, toolName: string): ToolPolicy | undefined;
}

/** Durable memory for grants when the remember scope is `workspace` (e.g. workspaceState). */
export interface PermissionStore {
  list(): readonly Grant[];
  add(grant: Grant): void | Promise<void>;
  /** Removes the grant with this `grantKey`. */
  remove(key: string): void | Promise<void>;
  clear(): void | Promise<void>;
}

export interface PermissionCheck {
  requestId: string;
  /** The tool's identity key (src/core/consent/toolIdentity.ts): policies and grants are looked up by it. */
  toolKey: string;
  toolName: string;
  groupName: string;
  /** The one line naming the exact target; shown on one line whatever it holds. */
  message: string;
  /** The tool's own lines (src/core/consent/consentText.ts). */
  detail?: ConsentText;
  /** The request's `description`: the backend's own summary, shown marked as such; never trusted. */
  backendDescription?: string;
  /**
   * Whether a remembered choice may answer, and whether "allow for this session" is offered.
   * False for forced prompts (protected paths, whole folders).
   */
  rememberable: boolean;
  /** The target the tool's `prepare` resolved; a grant is bound to it. Absent: the call names none. */
  target?: GrantTarget;
  /** The argument the user may edit before allowing, with the agent's value (offered on the chat's card only). */
  editable?: EditableArgument;
  /** The call's signal: aborting it withdraws the request, queued or open. */
  signal: AbortSignal;
  /** Called once, when the call starts waiting for the user (before it is queued). */
  onWaiting?: () => void;
  /**
   * The user's answer to a prompt about this same action asked moments before (consent.ts,
   * `ConsentAsk.binding`): it stands in for this call's prompt, after the policies, "deny all" and
   * the remembered grants have had their say.
   */
  answered?: PermissionDecision;
}

export type PermissionDecision =
  /** `remembered`: the grant the user chose on an earlier prompt, as its button said it. */
  | { kind: 'allowed'; via: 'remembered'; grant: { label: string } }
  /** `remembered` here: the user chose a grant on this prompt. */
  | { kind: 'allowed'; via: 'prompt'; remembered?: { label: string } }
  /** The tool's policy in the Tool Groups view is Allow. */
  | { kind: 'allowed'; via: 'policy' }
  /** `reason`: what the user wrote with their Deny, for the model (trimmed, one line, capped). */
  | { kind: 'denied'; via: 'user' | 'dismissed' | 'timeout' | 'error' | 'policy'; reason?: string }
  /**
   * Nothing was shown: too many prompts, or the user denies all from this backend for a while
   * (PROMPT_RATE_LIMITED), or the prompt would not fit its surface in full (PROMPT_TOO_LARGE).
   */
  | { kind: 'refused'; code: typeof ErrorCode.PromptRateLimited | typeof ErrorCode.PromptTooLarge; message: string }
  /** The user wrote their own value for the editable argument: nothing is allowed yet. */
  | { kind: 'edited'; value: string }
  | { kind: 'cancelled' };

export interface PermissionGateOptions {
  /** Shows the prompts (the chat's card or the modal, chosen at wiring). */
  presenter: PromptPresenter;
  store?: PermissionStore;
  rememberScope?: RememberScope;
  /** An unanswered prompt counts as deny after this long. Default 5 minutes. */
  promptTimeoutMs?: number;
  /** How long to wait for the host to close a withdrawn prompt before showing the next. Default 1 s. */
  closeGraceMs?: number;
  logger?: Logger;
  timers?: Timers;
  /** Prompt rate and "deny all" limits; defaults in promptBarrage.ts. */
  barrage?: Partial<BarragePolicy>;
  /** The user chose "Disconnect" on a prompt: end the connection to this backend. */
  onDisconnect?: () => void;
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
  /** Grants remembered until the window closes, by `grantKey`. */
  private readonly session = new Map<string, Grant>();
  private readonly barrage: PromptBarrage;
  private readonly queue: Pending[] = [];
  private active: Pending | undefined;
  private scope: RememberScope;
  private promptTimeoutMs: number;
  private policies: ToolPolicies | undefined;
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
    this.barrage = new PromptBarrage({ ...DEFAULT_BARRAGE_POLICY, ...options.barrage }, this.timers);
  }

  /** An unanswered prompt shown from now on counts as deny after this long. */
  setPromptTimeout(ms: number): void {
    this.promptTimeoutMs = ms;
  }

  /** The user's per-tool policies (Tool Groups view), read at every check. */
  setToolPolicies(policies: ToolPolicies): void {
    this.policies = policies;
  }

  setRememberScope(scope: RememberScope): void {
    this.scope = scope;
  }

  /** Resolves when the user (or a remembered choice) decided, or the call was withdrawn. Never rejects. */
  check(check: PermissionCheck): Promise<PermissionDecision> {
    if (check.signal.aborted) return Promise.resolve({ kind: 'cancelled' });
    // "Deny all" outranks remembered grants: the user said no to everything from this backend.
    const refused = this.refusal(check, this.barrage.denyingAll);
    if (refused) return Promise.resolve(refused);
    const byPolicy = this.policyFor(check);
    if (byPolicy) return Promise.resolve(byPolicy);
    const remembered = this.rememberedFor(check);
    if (remembered) return Promise.resolve(remembered);
    if (check.answered) return Promise.resolve(check.answered);
    const limited = this.refusal(check, true);
    if (limited) return Promise.resolve(limited);
    const unfit = this.textFor(check);
    if ('refused' in unfit) return Promise.resolve(unfit.refused);
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

  /** The grant that covers a call of the tool with identity key `toolKey` on `target`, if any. */
  grantFor(toolKey: string, target: GrantTarget | undefined): Grant | undefined {
    return this.remembered().find((g) => grantCovers(g, toolKey, target));
  }

  /** Every remembered grant: this window's, then the workspace's. */
  remembered(): Grant[] {
    return [...this.session.values(), ...(this.options.store?.list() ?? [])];
  }

  /** Whether "Deny All from This Backend" is in force. */
  get denyingAll(): boolean {
    return this.barrage.denyingAll;
  }

  /** Forgets one grant, or all of them (which also lifts a "deny all" and the prompt counts). */
  async forget(grant?: Grant): Promise<void> {
    if (grant === undefined) {
      this.session.clear();
      this.barrage.lift();
      await this.options.store?.clear();
    } else {
      const key = grantKey(grant);
      this.session.delete(key);
      if (grant.scope === 'workspace') await this.options.store?.remove(key);
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
    // While this call waited, the user may have chosen "deny all", or a grant that covers it, or
    // the backend may have used up its prompts.
    const decided = this.refusal(check, this.barrage.denyingAll) ?? this.policyFor(check) ?? this.rememberedFor(check) ?? this.refusal(check, true);
    if (decided) {
      this.settle(pending, decided);
      return;
    }
    // Measured again for the surface it is shown on now (the prompt style may have changed meanwhile).
    const surface = this.options.presenter.consentSurface?.() ?? 'modal';
    const choices = this.choicesFor(check, surface);
    const text = this.textFor(check);
    if ('refused' in text) {
      this.settle(pending, text.refused);
      return;
    }
    this.barrage.recordShown();
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

    const shown = { ...text.fitted, toolName: check.toolName, groupName: check.groupName, choices };
    const prompt: PermissionPrompt = {
      ...shown,
      // Its own id, not the request's: a backend may send the same request id again in a new session.
      promptId: randomUUID(),
      digest: createHash('sha256').update(approvalDigestInput(shown)).digest('hex'),
      requestId: check.requestId,
      offerAllowSession: choices.some((c) => c.answer === 'allowSession'),
      ...(check.editable && choices.some((c) => c.answer === 'edit') ? { editable: check.editable } : {}),
    };
    const answered = this.options.presenter.confirm(prompt, close.signal).then(
      (answer) => {
        if (close.signal.aborted && !timedOut) return; // withdrawn: the abort listener settled it
        const reply = typeof answer === 'string' ? { answer } : answer;
        this.settle(pending, this.decide(check, reply?.answer, choices, reply?.reason, reply?.edited));
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

  /** PROMPT_RATE_LIMITED when "deny all" is on or (with `rateToo`) the prompt rate is used up. */
  private refusal(check: PermissionCheck, applies: boolean): PermissionDecision | undefined {
    if (!applies) return undefined;
    const message = this.barrage.refusal();
    if (message === undefined) return undefined;
    this.logger.warn('permission prompt refused without asking', { requestId: check.requestId, tool: check.toolName, reason: message });
    return { kind: 'refused', code: ErrorCode.PromptRateLimited, message: `${check.toolName}: ${message}` };
  }

  /** The prompt's whole text measured for the presenter's surface, or the refusal that it does not fit. */
  private textFor(check: PermissionCheck): { fitted: FittedConsent } | { refused: PermissionDecision } {
    const surface = this.options.presenter.consentSurface?.() ?? 'modal';
    try {
      return { fitted: fitConsent(promptText(check), surface) };
    } catch (e) {
      if (!(e instanceof CodedError) || e.code !== ErrorCode.PromptTooLarge) throw e;
      this.logger.warn('permission prompt refused: its text does not fit in full', { requestId: check.requestId, tool: check.toolName, surface });
      return { refused: { kind: 'refused', code: ErrorCode.PromptTooLarge, message: `${check.toolName}: ${e.message}` } };
    }
  }

  /** Deny always applies; Allow only where a remembered grant could (never to a forced prompt). */
  private policyFor(check: PermissionCheck): PermissionDecision | undefined {
    const policy = this.policies?.get(check.toolKey, check.toolName);
    if (policy === 'deny') {
      this.logger.info('permission denied by the tool policy', { requestId: check.requestId, tool: check.toolName });
      return { kind: 'denied', via: 'policy' };
    }
    if (policy === 'allow' && check.rememberable) {
      this.logger.info('permission granted by the tool policy', { requestId: check.requestId, tool: check.toolName });
      return { kind: 'allowed', via: 'policy' };
    }
    return undefined;
  }

  private rememberedFor(check: PermissionCheck): PermissionDecision | undefined {
    if (!check.rememberable) return undefined;
    const grant = this.grantFor(check.toolKey, check.target);
    if (!grant) return undefined;
    this.logger.info('permission granted by a remembered grant', { requestId: check.requestId, tool: check.toolName, grant: grant.label });
    return { kind: 'allowed', via: 'remembered', grant: { label: grant.label } };
  }

  /** The grants a prompt offers (exactly what each would cover), Edit on the chat's card, then the way out of a barrage. */
  private choicesFor(check: PermissionCheck, surface: ConsentSurface): PermissionChoice[] {
    const choices: PermissionChoice[] = [];
    const scope = this.effectiveScope();
    if (check.rememberable) {
      const kind: GrantKind = check.target ? 'target' : 'tool';
      const offer = (answer: 'allowSession' | 'allowFolder', grantKind: GrantKind) => {
        // A button says what it remembers whole, or it is not offered: a cut label could hide the scope.
        const label = consentValue(makeGrant(toolOf(check), grantKind, check.target, scope).label);
        if (consentRows(label, MAX_CHOICE_LABEL_COLUMNS) === 1) choices.push({ answer, label });
      };
      offer('allowSession', kind);
      if (check.target?.folder) offer('allowFolder', 'folder');
    }
    // The modal dialog has no field to edit in; the chat's card has.
    if (check.editable && surface === 'chat') choices.push({ answer: 'edit', label: EDIT_LABEL });
    if (this.barrage.offersEscape(check.toolName)) {
      const minutes = this.barrage.denyAllMinutes;
      choices.push({ answer: 'denyAll', label: `Deny All from This Backend for ${minutes} Minute${minutes === 1 ? '' : 's'}` });
      if (this.options.onDisconnect) choices.push({ answer: 'disconnect', label: 'Disconnect' });
    }
    return choices;
  }

  private decide(check: PermissionCheck, answer: PermissionAnswer | undefined, offered: readonly PermissionChoice[], reason?: string, edited?: string): PermissionDecision {
    const wasOffered = (a: PermissionAnswer) => offered.some((c) => c.answer === a);
    if (answer === 'allow') return { kind: 'allowed', via: 'prompt' };
    if (answer === 'edit' && wasOffered('edit') && edited !== undefined) {
      // The value the prompt showed, sent back unchanged, is an Allow of what was shown.
      if (edited === check.editable?.value) return { kind: 'allowed', via: 'prompt' };
      this.logger.info('the user edited the call before allowing it; it is checked and asked about again', { requestId: check.requestId, tool: check.toolName });
      return { kind: 'edited', value: edited };
    }
    if (answer === 'allowSession' || answer === 'allowFolder') {
      // A remember button that was not offered (a forced prompt) is allow-once.
      if (!wasOffered(answer)) return { kind: 'allowed', via: 'prompt' };
      const kind: GrantKind = answer === 'allowFolder' ? 'folder' : check.target ? 'target' : 'tool';
      const grant = this.remember(makeGrant(toolOf(check), kind, check.target, this.effectiveScope()));
      return { kind: 'allowed', via: 'prompt', remembered: { label: grant.label } };
    }
    if (answer === undefined) {
      this.barrage.recordDenial(check.toolName);
      return { kind: 'denied', via: 'dismissed' };
    }
    this.barrage.recordDenial(check.toolName);
    // Disconnect alone does not deny all: the client stays disconnected until the user connects
    // again, and then means to be asked (the escape buttons are offered again at once).
    if (answer === 'denyAll') {
      this.barrage.denyAll();
      this.logger.warn(`the user denies every permission request from this backend for ${this.barrage.denyAllMinutes} minutes`, { requestId: check.requestId, tool: check.toolName });
    }
    if (answer === 'disconnect') {
      this.logger.warn('the user chose Disconnect on a permission prompt', { requestId: check.requestId, tool: check.toolName });
      // On the next turn, once this call's PERMISSION_DENIED has been sent: the disconnect then
      // only ends the calls still running or queued.
      this.timers.setTimeout(() => this.options.onDisconnect?.(), 0);
    }
    const said = cleanReason(reason);
    return said !== undefined ? { kind: 'denied', via: 'user', reason: said } : { kind: 'denied', via: 'user' };
  }

  /** `workspace` only when there is a store to keep it in; the button text follows this. */
  private effectiveScope(): RememberScope {
    return this.scope === 'workspace' && this.options.store ? 'workspace' : 'session';
  }

  private remember(grant: Grant): Grant {
    this.logger.info('permission remembered', { tool: grant.toolName, grant: grant.label });
    if (grant.scope === 'workspace' && this.options.store) {
      void Promise.resolve(this.options.store.add(grant)).catch((e: unknown) =>
        this.logger.error('could not store a remembered permission', { tool: grant.toolName, error: String(e) }),
      );
    } else {
      this.session.set(grantKey(grant), grant);
    }
    return grant;
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

function toolOf(check: PermissionCheck): { key: string; name: string } {
  return { key: check.toolKey, name: check.toolName };
}

/**
 * The prompt's whole text: the tool's line naming the target, then which tool asks, the tool's own
 * lines, and the request's description on one line, quoted and labelled as the backend's words, so
 * it can neither pass for the extension's text nor add lines of its own.
 */
function promptText(check: PermissionCheck): { message: ConsentText; detail: ConsentText } {
  const said = check.backendDescription?.trim();
  return {
    message: consentValue(check.message),
    detail: consentLines([
      consent`Requested by the agent through the ${check.groupName} tool ${check.toolName}.`,
      check.detail,
      said ? consent`The agent backend describes this call as (its words, not checked): “${said}”` : undefined,
    ], '\n\n'),
  };
}

/** A Deny's reason as the model reads it: one line, at most MAX_DENY_REASON_CHARS; empty means none. */
function cleanReason(reason: string | undefined): string | undefined {
  const line = reason?.replace(/\s+/g, ' ').trim();
  if (!line) return undefined;
  return line.length <= MAX_DENY_REASON_CHARS ? line : `${line.slice(0, MAX_DENY_REASON_CHARS - 1)}…`;
}
