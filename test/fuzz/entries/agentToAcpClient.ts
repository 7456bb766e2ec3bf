/**
 * Entry points: the ACP client from an agent (any npm package the user installs). The client runs
 * in its own process (hosts/acpClientHost.ts) and starts a real agent process over stdio whose
 * lines the fuzzer writes (support/agentSide.ts). Two entries:
 * - `agentToAcpClient`: every message an agent sends the client, from ACP's own JSON Schema
 *   (the SDK's schema/v1/schema.json): `session/update` (every update kind), the requests
 *   `session/request_permission`, `fs/*` and `terminal/*`, and the answer to `session/prompt`, with
 *   every value class in every position (support/plan.ts);
 * - `agentSequencesToAcpClient`: what one message cannot show: ids reused, thousands of tool calls
 *   and updates, diffs with huge or odd line endings, paths outside the workspace, protected or very
 *   long, unknown kinds, floods of permission requests before and after their announcements.
 * A case is one turn: the prompt, the case's lines, the prompt's answer. It passes when every request
 * of the agent's was answered (a result or an error with a code), no permission was allowed (the user
 * denies every prompt), the turn ended, the chat's schema takes every run event, nothing outside the
 * workspace and no protected file changed, and (the runner) the work and memory stayed bounded.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { CONNECTION_LIMITS } from '../../../src/agents/agentConnection';
import type { TurnOutcome } from '../hosts/acpClientHost';
import { AgentSide, SESSION_ID, type Answer, type TurnScript } from '../support/agentSide';
import { kept, planCases, type MessagePlan, type PlannedCase } from '../support/plan';
import type { Plant } from '../support/planted';
import type { EntryDriver } from '../support/runner';
import { shapeOf, type Json, type JsonSchema, type Position } from '../support/shape';
import { Target } from '../support/target';
import { sequenceCases } from './agentSequences';

/** Values fill a message up to what the connection takes from an agent, less room for the envelope. */
const MESSAGE_LIMIT = CONNECTION_LIMITS.maxMessageBytes - 64 * 1024;
/** ACP v1's JSON Schema as the SDK ships it (beside dist/v1/stable/acp.js; the package exports no path to it). */
const SCHEMA = JSON.parse(readFileSync(path.resolve(path.dirname(require.resolve('@agentclientprotocol/sdk')), '..', '..', '..', 'schema', 'v1', 'schema.json'), 'utf8')) as { $defs: Record<string, JsonSchema> };
/** The tool call every turn announces first, so that a permission request for it reaches the prompt. */
export const ANNOUNCED_ID = 'call-1';

const REQUESTS: Record<string, string> = {
  'session/request_permission': 'RequestPermissionRequest',
  'fs/read_text_file': 'ReadTextFileRequest',
  'fs/write_text_file': 'WriteTextFileRequest',
  'terminal/create': 'CreateTerminalRequest',
  'terminal/output': 'TerminalOutputRequest',
  'terminal/wait_for_exit': 'WaitForTerminalExitRequest',
  'terminal/kill': 'KillTerminalRequest',
  'terminal/release': 'ReleaseTerminalRequest',
};

/** A message of `method` whose params are ACP's `def`: its positions under `params`. */
function methodPlan(method: string, def: string, request: boolean, folder: string): MessagePlan {
  const shape = shapeOf(SCHEMA.$defs[def] as JsonSchema, SCHEMA as unknown as JsonSchema);
  return {
    message: method,
    shape: { sample: { jsonrpc: '2.0', ...(request ? { id: 0 } : {}), method, params: shape.sample }, positions: shape.positions.map((p) => under('params', p)) },
    limit: MESSAGE_LIMIT,
    fixed: (sample) => withSession(sample, folder),
  };
}

function under(key: string, p: Position): Position {
  return { ...p, path: [key, ...p.path], label: p.label === '(root)' ? key : `${key}.${p.label}`, variants: p.variants.map((v) => ({ ...v, path: [key, ...v.path] })) };
}

/** The sample made to reach the session's handlers: its session id, absolute paths in the workspace, the announced tool call. */
function withSession(sample: Json, folder: string): Json {
  const params = { ...((sample as { params?: Record<string, Json> }).params ?? {}) };
  params.sessionId = SESSION_ID;
  if (typeof params.path === 'string') params.path = path.join(folder, 'a');
  if (params.toolCall && typeof params.toolCall === 'object') params.toolCall = { ...(params.toolCall as Record<string, Json>), toolCallId: ANNOUNCED_ID };
  return { ...(sample as Record<string, Json>), params };
}

/** The line announcing ANNOUNCED_ID (an edit of `a`), sent before every case's own lines. */
export function announcement(folder: string): string {
  return JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: SESSION_ID, update: { sessionUpdate: 'tool_call', toolCallId: ANNOUNCED_ID, title: 'Edit a', kind: 'edit', status: 'pending', locations: [{ path: path.join(folder, 'a') }] } } });
}

/** A case's lines: one message (its request id set), or a sequence's lines (sequence cases are JSON arrays of lines). */
function scriptOf(c: PlannedCase, folder: string, serial: () => string): TurnScript {
  if (c.message === 'session/prompt result') return { lines: [], requests: [], promptAnswer: (id) => c.text((s) => ({ ...(s as object), id: id as Json })) };
  if (c.message.startsWith('sequence')) {
    const lines = JSON.parse(c.text()) as string[];
    return { lines: [announcement(folder), ...lines], requests: lines.flatMap(requestId) };
  }
  const id = serial();
  const line = c.text((s) => ((s as { id?: unknown }).id !== undefined ? { ...(s as object), id } : s));
  return { lines: [announcement(folder), line], requests: c.message in REQUESTS ? [id] : [] };
}

/** The id of a request line (a line with both); a line the client cannot parse is answered by nobody. */
function requestId(line: string): string[] {
  try {
    const m = JSON.parse(line) as { id?: unknown; method?: unknown };
    return typeof m.method === 'string' && (typeof m.id === 'string' || typeof m.id === 'number') ? [String(m.id)] : [];
  } catch {
    return [];
  }
}

/** What is wrong with the client's answers: a request unanswered, an error without a code, an allow nobody gave. */
function judged(answers: Answer[], missing: string[], closed: boolean): string[] {
  const wrong: string[] = [];
  if (missing.length > 0 && !closed) wrong.push(`nothing within 15000 ms for ${missing.length} requests (${missing.slice(0, 3).join(', ')})`);
  for (const a of answers) {
    if (a.error && typeof a.error.code !== 'number') wrong.push(`a check failed: an error without a code (${JSON.stringify(a.error).slice(0, 120)})`);
    const outcome = (a.result as { outcome?: { outcome?: string; optionId?: string } } | undefined)?.outcome;
    if (outcome?.outcome === 'selected' && /allow/i.test(outcome.optionId ?? '')) wrong.push(`a check failed: permission allowed (${outcome.optionId}) though every prompt was denied`);
  }
  return wrong;
}

function driver(name: string, plant: Plant, cases: (folder: string) => PlannedCase[]): EntryDriver {
  let side: AgentSide | undefined;
  let serial = 0;
  return {
    name,
    async start() {
      side ??= await AgentSide.start();
      return Target.start('acpClientHost.ts', { port: side.port, plant });
    },
    cases: (target) => cases(String(target.info.folder)),
    async run(c, target) {
      const s = side as AgentSide;
      const script = scriptOf(c, String(target.info.folder), () => `fz${++serial}`);
      const sent = s.nextTurn(script);
      const outcome = await target.request<TurnOutcome>('turn', undefined, 19_000);
      await Promise.race([sent, new Promise((r) => setTimeout(r, 1_000))]);
      const { answers, missing } = await s.answersTo(script.requests, 0);
      const wrong = judged(answers, missing, outcome.closed !== undefined);
      if (outcome.refused > 0) wrong.push(`the protocol refuses ${outcome.refused} of ${outcome.events} run events`);
      if (outcome.changed.length > 0) wrong.push(`a check failed: changed outside what a decision allowed: ${outcome.changed.join(', ')}`);
      if (outcome.ended === 'nothing') wrong.push('a check failed: the turn never finished');
      const codes = [...new Set(answers.map((a) => (a.error ? `error ${a.error.code}${a.error.data?.code ? ` ${a.error.data.code}` : ''}` : 'result')))];
      let said = `${answers.length} answers (${codes.join(', ') || 'none'}); ${outcome.events} run events (${outcome.eventBytes} bytes), run ${outcome.ended}; ${outcome.prompts} prompts`;
      if (outcome.closed !== undefined) {
        said += `; connection closed (${outcome.closed.slice(0, 80)}), reopened`;
        await target.request('reopen', undefined, 30_000);
      }
      return wrong.length > 0 ? `${wrong.join('; ')} · ${said}` : said;
    },
    async stop() {
      await side?.close();
      side = undefined;
    },
  };
}

/** Every message an agent sends, from ACP's schema, with every value class in every position. */
export function agentToAcpClient(plant: Plant = 'none'): EntryDriver {
  const name = 'ACP client from an agent';
  return driver(name, plant, (folder) => {
    const plans: MessagePlan[] = [methodPlan('session/update', 'SessionNotification', false, folder)];
    for (const [method, def] of Object.entries(REQUESTS)) plans.push(methodPlan(method, def, true, folder));
    const prompt = shapeOf(SCHEMA.$defs.PromptResponse as JsonSchema, SCHEMA as unknown as JsonSchema);
    plans.push({ message: 'session/prompt result', shape: { sample: { jsonrpc: '2.0', id: 0, result: prompt.sample }, positions: prompt.positions.map((p) => under('result', p)) }, limit: MESSAGE_LIMIT });
    return planCases(name, plans);
  });
}

/** Sequences of messages one message cannot show (agentSequences.ts). */
export function agentSequencesToAcpClient(plant: Plant = 'none'): EntryDriver {
  const name = 'ACP client from an agent, sequences';
  return driver(name, plant, (folder) => sequenceCases(folder).filter((c) => kept(name, c)));
}
