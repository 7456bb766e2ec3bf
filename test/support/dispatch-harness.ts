/**
 * Runs tools through a real Dispatcher + ToolRegistry + consent (and its permission gate) without a
 * socket: sent messages are collected, and `call()` resolves with the answer to one request.
 */
import type { ClientToolInvokeRequest, ClientToolInvokeResponse, ClientToolProgress, ClientToServer } from '../../src/protocol';
import { Dispatcher, type DispatcherLimits, type DispatcherOptions } from '../../src/core/dispatcher';
import type { IdeHost } from '../../src/core/host';
import type { LogFields, Logger } from '../../src/base/logger';
import { Consent, type BackgroundCallPolicy } from '../../src/core/consent/consent';
import type { PermissionGate, PermissionGateOptions } from '../../src/core/consent/permissionGate';
import type { PromptPresenter } from '../../src/core/consent/presenter';
import { ToolRegistry, type ToolGroupSpec } from '../../src/core/registry';
import type { ClientTool } from '../../src/core/tool';

export interface LogEntry {
  level: 'info' | 'warn' | 'error';
  message: string;
  fields?: LogFields;
}

export class RecordingLogger implements Logger {
  readonly entries: LogEntry[] = [];
  info(message: string, fields?: LogFields): void {
    this.entries.push({ level: 'info', message, fields });
  }
  warn(message: string, fields?: LogFields): void {
    this.entries.push({ level: 'warn', message, fields });
  }
  error(message: string, fields?: LogFields): void {
    this.entries.push({ level: 'error', message, fields });
  }
  /** Everything logged, as one string (to prove what is absent). */
  text(): string {
    return JSON.stringify(this.entries);
  }
}

export interface HarnessOptions {
  /** The host; it shows the prompts too unless `presenter` says otherwise. */
  host: IdeHost & PromptPresenter;
  group?: ToolGroupSpec;
  tools: readonly ClientTool[];
  limits?: Partial<DispatcherLimits>;
  gate?: Partial<Omit<PermissionGateOptions, 'presenter'>>;
  /**
   * Which requests come outside a user's run, and under which `backgroundCalls` policy: undefined
   * for a call of the user's run (the backend as the caller either way).
   */
  background?: (request: ClientToolInvokeRequest) => BackgroundCallPolicy | undefined;
  /** The dispatcher's `onFileWritten` (the run's change list). */
  onFileWritten?: DispatcherOptions['onFileWritten'];
}

export class DispatchHarness {
  readonly sent: ClientToServer[] = [];
  readonly registry = new ToolRegistry();
  readonly consent: Consent;
  readonly gate: PermissionGate;
  readonly dispatcher: Dispatcher;
  readonly logger = new RecordingLogger();
  /** When false, `send` refuses like a closed socket. */
  connected = true;
  private waiters: { id: string; resolve: (r: ClientToolInvokeResponse) => void }[] = [];
  private readonly background: HarnessOptions['background'];
  private nextId = 1;

  constructor(options: HarnessOptions) {
    const group = options.group ?? { name: options.tools[0]?.group ?? 'Test', description: 'test tools' };
    this.registry.register(group, options.tools);
    this.consent = new Consent({ presenter: options.host, logger: this.logger, ...options.gate });
    this.gate = this.consent.gate;
    this.background = options.background;
    this.dispatcher = new Dispatcher({
      registry: this.registry,
      consent: this.consent,
      host: options.host,
      logger: this.logger,
      limits: options.limits,
      ...(options.onFileWritten ? { onFileWritten: options.onFileWritten } : {}),
      send: (message, onSent) => {
        if (!this.connected) return false;
        this.sent.push(message);
        if (message.type === 'clientToolInvokeResponse') {
          const i = this.waiters.findIndex((w) => w.id === message.requestId);
          if (i >= 0) this.waiters.splice(i, 1)[0].resolve(message);
        }
        queueMicrotask(() => onSent?.());
        return true;
      },
    });
  }

  /** Sends a request to the dispatcher; returns its id. */
  invoke(toolName: string, args: Record<string, unknown>, requestId = `r${this.nextId++}`): string {
    const request: ClientToolInvokeRequest = { type: 'clientToolInvokeRequest', requestId, toolName, callId: `c-${requestId}`, arguments: args };
    const policy = this.background?.(request);
    if (policy !== undefined) this.consent.setBackgroundCalls(policy);
    this.dispatcher.handleInvoke(request, { kind: 'backend', userRun: policy === undefined });
    return requestId;
  }

  /** Waits for the next answer to `requestId` (one already sent counts only if `includeSent`). */
  response(requestId: string, includeSent = true): Promise<ClientToolInvokeResponse> {
    if (includeSent) {
      const already = this.responses(requestId)[0];
      if (already) return Promise.resolve(already);
    }
    return new Promise((resolve) => this.waiters.push({ id: requestId, resolve }));
  }

  async call(toolName: string, args: Record<string, unknown>, requestId?: string): Promise<ClientToolInvokeResponse> {
    const id = this.invoke(toolName, args, requestId);
    return this.response(id);
  }

  responses(requestId: string): ClientToolInvokeResponse[] {
    return this.sent.filter((m): m is ClientToolInvokeResponse => m.type === 'clientToolInvokeResponse' && m.requestId === requestId);
  }

  progress(requestId: string): ClientToolProgress[] {
    return this.sent.filter((m): m is ClientToolProgress => m.type === 'clientToolProgress' && m.requestId === requestId);
  }

  dispose(): void {
    this.dispatcher.dispose();
    this.consent.dispose();
    this.registry.dispose();
  }
}

/** Resolves after `ms`; for the few places a short real wait is the simplest honest check. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `condition` every few ms until it holds, or fails after `timeoutMs`. */
export async function until(condition: () => boolean, timeoutMs = 3000, what = 'condition'): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await delay(5);
  }
}
