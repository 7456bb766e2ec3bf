/**
 * One model turn's tool calls. Each call is resolved and validated against its schema (a call
 * refused here is answered at once, as executor `server`), runs between the backend's hooks, and the
 * batch runs server tools first, concurrently unless a call is `sequential`. Results come back in
 * the order the model asked; the thread store adds them to the history (threads.ts).
 */
import { randomUUID } from 'node:crypto';
import type { ContentItem, Executor, ProgressStatus, ServerToClient } from '../../protocol';
import { ErrorCode } from '../../protocol';
import { checkArguments, compileParameters } from '../toolset/jsonSchema';
import type { Logger } from '../log';
import type { ToolCallRequest } from '../model/chatModel';
import type { HookLists, ServerTool, ToolCallInfo, ToolCallResult } from '../toolset/serverTools';
import { toToolCallResult } from '../toolset/serverTools';
import { DEFAULT_MAX_TOOL_ARGUMENT_BYTES, parseArguments } from './toolArguments';
import type { ClientToolState, Expansion, FunctionSpec } from '../toolset/toolState';

/** The session's client calls (invoker.ts `ClientInvoker`), as the tool calls use them. */
export interface ClientToolRunner {
  invoke(
    call: { toolName: string; callId: string; arguments: Record<string, unknown>; threadId: string; runId: string },
    signal: AbortSignal,
    onProgress: (status: ProgressStatus, details?: string) => void,
  ): Promise<ToolCallResult>;
}

export interface ToolCallHost {
  send(message: ServerToClient): void;
  readonly invoker: ClientToolRunner;
  readonly hooks: HookLists;
  readonly log: Logger;
}

export interface RunRef {
  threadId: string;
  runId: string;
}

/** What one batch needs of its thread and run. */
export interface BatchContext {
  ref: RunRef;
  signal: AbortSignal;
  tools: ClientToolState;
  /** The session's server tools. */
  serverTools: ReadonlyMap<string, ServerTool>;
  /** A server tool by name: the session's, else the thread's result pager. */
  serverTool(name: string): ServerTool | undefined;
  /** The functions the model sees (named in the error for an unknown one). */
  functions(): FunctionSpec[];
  /** Container or skill calls changed the thread's tools; called before the other calls run. */
  expanded(): void;
}

/** One call of a batch, resolved and validated, ready to run. */
export interface PreparedCall {
  executor: Executor;
  sequential: boolean;
  run(): Promise<ToolCallResult>;
}

export class ToolCalls {
  constructor(
    private readonly host: ToolCallHost,
    private readonly maxArgumentBytes: number = DEFAULT_MAX_TOOL_ARGUMENT_BYTES,
  ) {}

  /**
   * One batch of calls. Container and skill calls are answered first (so a tool of the group called
   * in the same batch resolves), then every other call is resolved and validated; the valid ones run
   * (executeBatch) and the results come back in the order the model asked.
   */
  async run(batch: BatchContext, calls: ToolCallRequest[]): Promise<(ToolCallResult | undefined)[]> {
    const { tools } = batch;
    const expansions = calls.map((call) => {
      if (batch.serverTools.has(call.name)) return undefined;
      const r = tools.resolve(call.name);
      if (r?.kind === 'container') return tools.expand(r.group);
      if (r?.kind === 'skill') return tools.activateSkill(r.group, r.skill.name);
      return undefined;
    });

    const results: (ToolCallResult | undefined)[] = new Array(calls.length);
    const toRun: { index: number; call: PreparedCall }[] = [];
    calls.forEach((call, i) => {
      const expansion = expansions[i];
      if (expansion) {
        results[i] = this.announceExpansion(batch.ref, call, expansion);
        return;
      }
      const prepared = this.prepare(batch, call);
      if ('result' in prepared) results[i] = prepared.result;
      else toRun.push({ index: i, call: prepared.call });
    });
    if (expansions.some(Boolean)) batch.expanded();

    const ran = await executeBatch(toRun.map((r) => r.call));
    toRun.forEach((r, k) => (results[r.index] = ran[k]));
    return results;
  }

  private announceExpansion(ref: RunRef, call: ToolCallRequest, expansion: Expansion): ToolCallResult {
    const { host } = this;
    host.send({ type: 'toolCallStarted', ...ref, callId: call.id, toolName: call.name, arguments: {}, executor: 'server', group: expansion.group });
    host.send({ type: 'groupExpanded', ...ref, group: expansion.group, ...(expansion.skill ? { skill: expansion.skill } : {}), tools: expansion.tools });
    const content: ContentItem[] = [{ type: 'text', text: expansion.text }];
    host.send({ type: 'toolCallEnded', ...ref, callId: call.id, outcome: 'succeeded', content, durationMs: 0 });
    return { outcome: 'succeeded', content };
  }

  /** Resolves and validates a call: either an immediate (error) result, or a call ready to run. */
  private prepare(batch: BatchContext, call: ToolCallRequest): { result: ToolCallResult } | { call: PreparedCall } {
    const { host } = this;
    const { ref } = batch;
    const parsed = parseArguments(call.arguments, this.maxArgumentBytes);
    const serverTool = batch.serverTool(call.name);
    const resolved = serverTool ? undefined : batch.tools.resolve(call.name);
    const executor = serverTool ? 'server' : 'client';
    const group = resolved && 'group' in resolved ? resolved.group : undefined;

    // A call refused here never reaches the extension: the backend answers it, so its executor is
    // `server` and the chat draws its card from these events (PROTOCOL.md "toolCallStarted").
    const immediate = (result: ToolCallResult) => {
      host.send({ type: 'toolCallStarted', ...ref, callId: call.id, toolName: call.name, arguments: parsed.ok ? parsed.value : {}, executor: 'server', ...(group ? { group } : {}) });
      host.send(callEnded(ref, call.id, result, 0));
      return { result };
    };

    let parameters: Record<string, unknown>;
    let sequential: boolean;
    if (serverTool) {
      parameters = serverTool.parameters;
      sequential = serverTool.sequential === true;
    } else if (resolved?.kind === 'tool') {
      parameters = resolved.tool.parameters;
      sequential = resolved.tool.sequential === true;
    } else if (resolved?.kind === 'unavailable') {
      const why = resolved.reason === 'hidden'
        ? `"${call.name}" is hidden right now and cannot be called.`
        : `"${call.name}" belongs to the collapsed tool group "${resolved.group}"; call the function "${resolved.container}" first to expand it.`;
      return immediate(failure(ErrorCode.ToolHidden, why));
    } else {
      const names = batch.functions().map((f) => f.name);
      return immediate(failure(ErrorCode.UnknownTool, `There is no function named "${call.name}". Available functions: ${names.join(', ') || '(none)'}.`));
    }

    if (!parsed.ok) return immediate(failure(parsed.code, `Invalid arguments for ${call.name}: ${parsed.reason}. The tool was not run.`));
    const validation = validate(call.name, parameters, parsed.value);
    if (!validation.ok) return immediate(validation.result);

    const info: ToolCallInfo = { callId: call.id, toolName: call.name, arguments: validation.value, executor, ...(group ? { group } : {}), ...ref };
    host.send({ type: 'toolCallStarted', ...ref, callId: call.id, toolName: call.name, arguments: validation.value, executor, ...(group ? { group } : {}) });
    const { signal } = batch;
    return {
      call: {
        executor,
        sequential,
        run: async () => {
          const started = Date.now();
          let result = await this.beforeHooks(info, parameters);
          if (!result) {
            try {
              result = serverTool ? await this.runServerTool(serverTool, info, signal) : await this.runClientTool(info, signal);
            } catch (e) {
              result = failure(ErrorCode.ToolFailed, `${call.name} failed: ${e instanceof Error ? e.message : String(e)}`);
            }
          }
          result = await this.afterHooks(info, result);
          host.send(callEnded(ref, call.id, result, Date.now() - started));
          return result;
        },
      },
    };
  }

  /** Runs the beforeToolCall hooks in order; a result means the call must not run. Rewritten arguments are validated again. */
  private async beforeHooks(info: ToolCallInfo, parameters: Record<string, unknown>): Promise<ToolCallResult | undefined> {
    for (const hook of this.host.hooks.beforeToolCall) {
      let decision;
      try {
        decision = await hook(info);
      } catch (e) {
        return failure(ErrorCode.ToolFailed, `The backend's beforeToolCall hook failed: ${e instanceof Error ? e.message : String(e)}`);
      }
      if (!decision) continue;
      if ('block' in decision) {
        return { outcome: 'denied', content: [], errorCode: ErrorCode.PermissionDenied, errorMessage: `The backend blocked ${info.toolName}: ${decision.reason}` };
      }
      const validation = validate(info.toolName, parameters, decision.arguments);
      if (!validation.ok) return validation.result;
      info.arguments = validation.value;
    }
    return undefined;
  }

  private async afterHooks(info: ToolCallInfo, result: ToolCallResult): Promise<ToolCallResult> {
    let current = result;
    for (const hook of this.host.hooks.afterToolCall) {
      try {
        current = (await hook(info, current)) ?? current;
      } catch (e) {
        this.host.log.error(`afterToolCall hook failed for ${info.toolName}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    return current;
  }

  private async runServerTool(tool: ServerTool, info: ToolCallInfo, signal: AbortSignal): Promise<ToolCallResult> {
    const { host } = this;
    const ref = { threadId: info.threadId, runId: info.runId };
    const work = Promise.resolve().then(() =>
      tool.execute(info.arguments, {
        callId: info.callId,
        threadId: info.threadId,
        runId: info.runId,
        signal,
        progress: (details) => host.send({ type: 'toolCallUpdated', ...ref, callId: info.callId, status: 'progress', details: String(details).slice(0, 10_000) }),
      }),
    );
    const value = await untilAborted(work, signal);
    if (value === ABORTED) return { outcome: 'cancelled', content: [], errorCode: ErrorCode.Cancelled, errorMessage: `${tool.name} was cancelled.` };
    return toToolCallResult(value);
  }

  private runClientTool(info: ToolCallInfo, signal: AbortSignal): Promise<ToolCallResult> {
    const ref = { threadId: info.threadId, runId: info.runId };
    return this.host.invoker.invoke({ toolName: info.toolName, callId: info.callId, arguments: info.arguments, threadId: info.threadId, runId: info.runId }, signal, (status, details) =>
      this.host.send({ type: 'toolCallUpdated', ...ref, callId: info.callId, status, ...(details !== undefined ? { details } : {}) }),
    );
  }
}

/**
 * Runs a batch: server calls first, then client calls. Within each phase, consecutive calls run
 * together; a sequential call waits for the calls before it and runs alone. Results are returned
 * in the order of `calls`. A call that throws yields a TOOL_FAILED result; the batch goes on.
 */
export async function executeBatch(calls: readonly PreparedCall[]): Promise<ToolCallResult[]> {
  const results: ToolCallResult[] = new Array<ToolCallResult>(calls.length);
  const runOne = async (i: number) => {
    try {
      results[i] = await calls[i].run();
    } catch (e) {
      results[i] = failure(ErrorCode.ToolFailed, e instanceof Error ? e.message : String(e));
    }
  };
  for (const executor of ['server', 'client'] as const) {
    let together: Promise<void>[] = [];
    for (let i = 0; i < calls.length; i++) {
      if (calls[i].executor !== executor) continue;
      if (calls[i].sequential) {
        await Promise.all(together);
        together = [];
        await runOne(i);
      } else {
        together.push(runOne(i));
      }
    }
    await Promise.all(together);
  }
  return results;
}

export function failure(code: string, message: string, content: ContentItem[] = []): ToolCallResult {
  return { outcome: 'failed', content, errorCode: code, errorMessage: message.slice(0, 10_000) };
}

/** The `toolCallEnded` event of a result. */
export function callEnded(ref: RunRef, callId: string, result: ToolCallResult, durationMs: number): ServerToClient {
  return {
    type: 'toolCallEnded',
    ...ref,
    callId,
    outcome: result.outcome,
    content: result.content,
    ...(result.errorMessage !== undefined ? { errorMessage: result.errorMessage.slice(0, 10_000) } : {}),
    ...(result.outcome !== 'succeeded' ? { errorCode: (result.errorCode ?? ErrorCode.ToolFailed).slice(0, 64) } : {}),
    durationMs,
  };
}

/** Checks a tool's arguments against its schema (with the usual coercions); a failure is the result the caller reports. */
export function validate(toolName: string, parameters: Record<string, unknown>, args: Record<string, unknown>): { ok: true; value: Record<string, unknown> } | { ok: false; result: ToolCallResult } {
  const schema = compileParameters(parameters);
  if (!schema.ok) return { ok: false, result: failure(ErrorCode.InvalidSchema, `${toolName} has an invalid parameter schema (${schema.reason}); it cannot be called.`) };
  const checked = checkArguments(schema.validate, args);
  if (!checked.ok) return { ok: false, result: failure(ErrorCode.InvalidArguments, `Invalid arguments for ${toolName}: ${checked.reason}. The tool was not run.`) };
  return { ok: true, value: checked.value };
}

/** The model's call ids, made non-empty, short enough for the protocol and unique in the batch. */
export function withUniqueIds(calls: ToolCallRequest[]): ToolCallRequest[] {
  const seen = new Set<string>();
  return calls.map((c) => {
    let id = c.id;
    if (!id || id.length > 200 || seen.has(id)) id = `call_${randomUUID()}`;
    seen.add(id);
    return id === c.id ? c : { ...c, id };
  });
}

/** What the model reads for a result: the content when it succeeded, else an error (or skip) sentence first. */
export function modelContent(toolName: string, r: ToolCallResult): ContentItem[] {
  if (r.outcome === 'succeeded') return r.content.length ? r.content : [{ type: 'text', text: `${toolName} finished without output.` }];
  const message = r.errorMessage ?? `${toolName}: ${r.outcome}.`;
  const head = r.outcome === 'skipped' ? `Skipped: ${message}` : `Error (${r.errorCode ?? ErrorCode.ToolFailed}): ${message}`;
  return [{ type: 'text', text: head }, ...r.content.filter((c) => !(c.type === 'text' && c.text === message))];
}

const ABORTED = Symbol('aborted');

function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T | typeof ABORTED> {
  if (signal.aborted) return Promise.resolve(ABORTED);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(ABORTED);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}
