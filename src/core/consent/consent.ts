/**
 * The consent module: the one place that decides whether a call may run and whether the user must
 * be asked first, whichever front door it came through (the backend over the WebSocket, a program
 * calling the editor's MCP server, an ACP agent). It reads the caller, the tool's local definition
 * and preparation, and (through the permission gate, whose queue is the only one) the user's
 * policies, grants and the prompt barrage; it writes the prompt's words. A request's `description`
 * is shown as the backend's words and decides nothing. Two askers of one action (an agent's own
 * permission request and the editor's prompt for the change it then makes) can share one decision
 * by naming the same `binding`.
 */
import { silentLogger, type Logger } from '../../base/logger';
import type { Disposable, Event } from '../../base/events';
import { systemTimers, type Timers } from '../timers';
import { ErrorCode } from '../../protocol';
import type { BackgroundCallPolicy, CallPermission } from '../callRecord';
import type { CallerLifetime } from './callerLifetime';
import type { GrantTarget } from './grants';
import { consent, consentLines, type ConsentText } from './consentText';
import type { EditableArgument } from './presenter';
import { PermissionGate, type PermissionDecision, type PermissionGateOptions, type PromptActivity } from './permissionGate';

/** What the calls outside a run the user started are subject to (`clientTools.permissions.backgroundCalls`). */
export type { BackgroundCallPolicy };

/**
 * Who carries a call: `backend` (the chat's backend, over the WebSocket), `mcp` (a program calling
 * the editor's MCP server, an ACP agent's own MCP client included), `agent` (an ACP agent's request
 * of the editor: a file read or write, a terminal, its own permission request).
 */
export type CallerKind = 'backend' | 'mcp' | 'agent';

export interface Caller {
  readonly kind: CallerKind;
  /** How prompts and cards name it when it is not the backend: the MCP client's or the agent's name (plain text, capped). */
  readonly label?: string;
  /** Whether a run the user started carries the call: the chat's run on the call's thread, an agent's turn. */
  readonly userRun: boolean;
  /** How long the caller is there; when it ends, the call is cancelled and its prompt closes. */
  readonly lifetime?: CallerLifetime;
}

/** A call of the backend within a run the user started: what a call without a named caller counts as. */
export const USER_RUN_CALLER: Caller = { kind: 'backend', userRun: true };

/** What `prepare` returns; tools add their own fields for `run`. */
export interface Preparation {
  /** The prompt's one line, naming the exact target; shown on one line whatever it holds. Defaults to "Allow <Tool>?". */
  prompt?: string;
  /** More text for the prompt, built with `consent` (src/core/consent/consentText.ts): values stay on one line each. */
  detail?: ConsentText;
  /**
   * Ask even when the tool needs no permission, and never let a remembered grant
   * answer it: the target is a protected path, a whole folder, or similar.
   */
  forcePrompt?: boolean;
  /**
   * The target the prompt names (see `grantTargetOf`): a remembered "allow" then covers this tool on
   * this target (or its folder, if the user chose that) and nothing else. Without it a remembered
   * "allow" covers every call of the tool, and its button says so.
   */
  grantTarget?: GrantTarget;
}

/** The tool as its local definition says; nothing from the request. */
export interface ConsentTool {
  /** Its identity key (toolIdentity.ts): policies and grants are found by it. */
  key: string;
  name: string;
  group: string;
  requiresPermission: boolean;
}

export interface ConsentAsk {
  requestId: string;
  tool: ConsentTool;
  /** What the tool's `prepare` said: its prompt line and lines, a forced prompt, the target a grant binds to. */
  preparation: Preparation | undefined;
  /** The request's `description`: shown as the backend's words, never trusted. */
  description?: string;
  /** Aborting it withdraws the question, queued or open. */
  signal: AbortSignal;
  /** Called once when the call starts waiting for the user. */
  onWaiting?: () => void;
  /**
   * The action this question is about, in terms both of its askers can compute from its exact
   * arguments and its caller (for example the agent, the file and the digest of its new content).
   * The user's answer to the first asker of a binding stands in for the prompt of the askers that
   * joined while it was decided, or else of the next asker within `bindingHoldMs`, once; each still
   * meets its own policies and grants first.
   */
  binding?: string;
  /** The one argument the prompt may let the user edit before allowing (the chat's Edit), with the proposed value. */
  editable?: EditableArgument;
}

export type ConsentDecision =
  /** Nothing to ask: the tool needs no permission and nothing forced a prompt. */
  | { kind: 'notAsked' }
  | PermissionDecision;

/** Outside a run the user started while `backgroundCalls` is `deny`: refused before the tool prepared anything. */
export interface BackgroundRefusal {
  kind: 'denied';
  via: 'backgroundCalls';
}

export interface ConsentOptions extends PermissionGateOptions {
  /** Calls outside any run the user started. Default `ask`. */
  backgroundCalls?: BackgroundCallPolicy;
  /** How long the user's answer for a binding waits for its second asker. Default 60 s. */
  bindingHoldMs?: number;
}

/** How long the user's answer for a binding waits for its second asker, by default. */
export const DEFAULT_BINDING_HOLD_MS = 60_000;

/** A decision being made for a binding; `joined` once a second asker waits for it. */
interface SharedDecision {
  readonly decision: Promise<ConsentDecision>;
  joined: boolean;
}

/** The user's answer for a binding, kept for its next asker. */
interface HeldAnswer {
  decision: PermissionDecision;
  timer: unknown;
}

export class Consent implements Disposable {
  /** The queue of prompts, the remembered grants, the policies and the barrage. */
  readonly gate: PermissionGate;
  private backgroundCalls: BackgroundCallPolicy;
  private readonly logger: Logger;
  private readonly timers: Timers;
  private readonly bindingHoldMs: number;
  /** Decisions being made for a binding, shared by every asker that names it. */
  private readonly shared = new Map<string, SharedDecision>();
  /** The user's answers for bindings, each waiting for one more asker. */
  private readonly held = new Map<string, HeldAnswer>();

  constructor(options: ConsentOptions) {
    this.gate = new PermissionGate(options);
    this.backgroundCalls = options.backgroundCalls ?? 'ask';
    this.logger = options.logger ?? silentLogger;
    this.timers = options.timers ?? systemTimers;
    this.bindingHoldMs = options.bindingHoldMs ?? DEFAULT_BINDING_HOLD_MS;
  }

  /** A prompt opened or closed, or the queue changed. */
  get onDidChangeActivity(): Event<PromptActivity> {
    return this.gate.onDidChangeActivity;
  }

  /** `clientTools.permissions.backgroundCalls` changed; applies to calls that arrive from now on. */
  setBackgroundCalls(policy: BackgroundCallPolicy): void {
    this.backgroundCalls = policy;
  }

  get backgroundCallPolicy(): BackgroundCallPolicy {
    return this.backgroundCalls;
  }

  /**
   * Takes in a call as it arrives: what it is subject to is fixed now, whatever changes while it
   * waits. `binding`: the action it is about, when another asker may ask about the same one.
   */
  admit(caller: Caller, binding?: string): CallConsent {
    return new CallConsent(this, caller, caller.userRun ? undefined : this.backgroundCalls, binding);
  }

  /** Decides `ask` for `call`, joins the decision being made for its binding, or takes the user's answer held for it. */
  decide(call: CallConsent, ask: ConsentAsk): Promise<ConsentDecision> {
    const binding = ask.binding;
    if (binding === undefined) return this.decideAlone(call, ask);
    const pending = this.shared.get(binding);
    if (pending) {
      this.logger.info('consent shared with a decision being made for the same action', { requestId: ask.requestId, tool: ask.tool.name });
      pending.joined = true;
      return untilAborted(pending.decision, ask.signal).then((d) => {
        if (ask.signal.aborted) return { kind: 'cancelled' };
        // The user's answer stands in for this asker's prompt, behind its own policies and grants;
        // anything else (the first withdrew, its own policy or grant decided) and it is asked alone.
        return isUsersAnswer(d) ? this.decideAlone(call, ask, d) : this.decide(call, ask);
      });
    }
    const held = this.held.get(binding);
    if (held) {
      this.held.delete(binding);
      this.timers.clearTimeout(held.timer);
      this.logger.info('consent answered by the user\'s answer for the same action', { requestId: ask.requestId, tool: ask.tool.name });
    }
    const shared: SharedDecision = { decision: this.decideAlone(call, ask, held?.decision), joined: false };
    this.shared.set(binding, shared);
    void shared.decision.then((d) => {
      if (this.shared.get(binding) === shared) this.shared.delete(binding);
      // Held for one later asker, unless it answered one already (a held answer, or an asker that joined).
      if (!held && !shared.joined && isUsersAnswer(d)) this.hold(binding, d);
    });
    return shared.decision;
  }

  dispose(): void {
    for (const h of this.held.values()) this.timers.clearTimeout(h.timer);
    this.held.clear();
    this.gate.dispose();
  }

  private hold(binding: string, decision: PermissionDecision): void {
    const timer = this.timers.setTimeout(() => {
      if (this.held.get(binding)?.timer === timer) this.held.delete(binding);
    }, this.bindingHoldMs);
    this.held.set(binding, { decision, timer });
  }

  private async decideAlone(call: CallConsent, ask: ConsentAsk, answered?: PermissionDecision): Promise<ConsentDecision> {
    const prepared = promptWords(call, ask);
    // The local definition and the preparation decide; nothing in the request is consulted here.
    if (!ask.tool.requiresPermission && prepared?.forcePrompt !== true) return { kind: 'notAsked' };
    return this.gate.check({
      requestId: ask.requestId,
      toolKey: ask.tool.key,
      toolName: ask.tool.name,
      groupName: ask.tool.group,
      message: prepared?.prompt ?? `Allow ${ask.tool.name}?`,
      ...(prepared?.detail !== undefined ? { detail: prepared.detail } : {}),
      ...(ask.description !== undefined ? { backendDescription: ask.description } : {}),
      rememberable: prepared?.forcePrompt !== true,
      ...(prepared?.grantTarget ? { target: prepared.grantTarget } : {}),
      ...(ask.editable ? { editable: ask.editable } : {}),
      signal: ask.signal,
      ...(ask.onWaiting ? { onWaiting: ask.onWaiting } : {}),
      ...(answered ? { answered } : {}),
    });
  }
}

/** One call's consent, from the moment it arrived: its caller and the background policy it is under. */
export class CallConsent {
  constructor(
    private readonly consent: Consent,
    readonly caller: Caller,
    /** Undefined within a run the user started; else what such calls were subject to when it arrived. */
    readonly background: BackgroundCallPolicy | undefined,
    /** The action it is about (`ConsentAsk.binding`), when the caller named one. */
    readonly binding?: string,
  ) {}

  /** Refused before the tool prepares anything (background calls are off), or undefined. */
  refusal(): BackgroundRefusal | undefined {
    return this.background === 'deny' ? { kind: 'denied', via: 'backgroundCalls' } : undefined;
  }

  /** Whether it may run, asking the user when it must. Never rejects. */
  decide(ask: ConsentAsk): Promise<ConsentDecision> {
    if (ask.binding === undefined && this.binding !== undefined) return this.consent.decide(this, { ...ask, binding: this.binding });
    return this.consent.decide(this, ask);
  }
}

/**
 * The tool's own prompt with the words that say who asks. A background call under `ask` is asked
 * like a protected target: always a prompt saying where the request comes from, never answered by
 * a remembered choice. A program calling the editor's MCP server is named in the prompt, and so is
 * an ACP agent outside its turn.
 */
function promptWords(call: CallConsent, ask: ConsentAsk): Preparation | undefined {
  const own = ask.preparation;
  const { kind, label } = call.caller;
  const mcpClient = kind === 'mcp' ? label : undefined;
  const agent = kind === 'agent' ? label : undefined;
  if (call.background === 'ask') {
    const line = own?.prompt ?? `Allow ${ask.tool.name}?`;
    const named = kind !== 'backend' ? label : undefined;
    const why = mcpClient !== undefined
      ? consent`An agent outside this window's chat asked for this through the editor's MCP server (${mcpClient}).`
      : agent !== undefined
        ? consent`${agent}, the agent of a conversation in this chat, asked for this while no turn you started is running (a background call).`
        : consent`The agent backend asked for this while no chat run you started is in progress (a background call).`;
    return {
      ...own,
      prompt: `${named !== undefined ? `${named} request` : 'Background request'}: ${line}`,
      detail: consentLines([why, own?.detail], '\n\n'),
      forcePrompt: true,
    };
  }
  if (mcpClient !== undefined) return { ...own, detail: consentLines([consent`Asked for through the editor's MCP server by ${mcpClient}.`, own?.detail], '\n\n') };
  if (agent !== undefined) return { ...own, detail: consentLines([consent`Asked for by ${agent}, the agent of this conversation.`, own?.detail], '\n\n') };
  return own;
}

/** What a call's record says of its consent; undefined when nothing was decided (not asked, withdrawn). */
export function permissionOnRecord(decision: ConsentDecision | BackgroundRefusal): CallPermission | undefined {
  // Withdrawn, not asked, or edited (the edited call is asked about again and that answer is recorded).
  if (decision.kind === 'cancelled' || decision.kind === 'notAsked' || decision.kind === 'edited') return undefined;
  // Refused by the prompt barrage: nothing was shown, and the card says why.
  if (decision.kind === 'refused') return { decision: 'denied', via: decision.code === ErrorCode.PromptTooLarge ? 'promptTooLarge' : 'rateLimited' };
  // Only a call let through by a remembered grant carries the grant's label on its card.
  const grantLabel = decision.kind === 'allowed' && decision.via === 'remembered' ? decision.grant.label : undefined;
  return { decision: decision.kind, via: decision.via, ...(grantLabel !== undefined ? { grantLabel } : {}) };
}

/** An answer the user gave on a prompt (not a policy, a grant, a timeout or a withdrawal): what a second asker may take. */
function isUsersAnswer(d: ConsentDecision): d is PermissionDecision {
  return (d.kind === 'allowed' && d.via === 'prompt') || (d.kind === 'denied' && d.via === 'user');
}

/** `decision`, or cancelled as soon as `signal` aborts (a joined decision goes on for the others). */
function untilAborted(decision: Promise<ConsentDecision>, signal: AbortSignal): Promise<ConsentDecision> {
  if (signal.aborted) return Promise.resolve({ kind: 'cancelled' });
  return new Promise((resolve) => {
    const onAbort = () => resolve({ kind: 'cancelled' });
    signal.addEventListener('abort', onAbort, { once: true });
    void decision.then((d) => {
      signal.removeEventListener('abort', onAbort);
      resolve(d);
    });
  });
}
