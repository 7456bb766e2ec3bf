/**
 * The sequence cases of the ACP client's fuzzer entry (agentToAcpClient.ts): what one message with
 * one hostile value cannot show. Each case is one turn's lines: ids reused, thousands of tool calls
 * and updates, diffs with huge or odd line endings, paths outside the workspace, protected or very
 * long, unknown kinds and methods, other sessions' ids, and floods of permission requests before and
 * after their announcements (more than the session waits for at once).
 */
import * as path from 'node:path';
import { SESSION_ID } from '../support/agentSide';
import type { HostileValue } from '../support/hostile';
import type { PlannedCase } from '../support/plan';
import type { Position } from '../support/shape';

type Params = Record<string, unknown>;

const update = (u: Params, sessionId = SESSION_ID) => JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId, update: u } });
const request = (id: string | number, method: string, params: Params) => JSON.stringify({ jsonrpc: '2.0', id, method, params: { sessionId: SESSION_ID, ...params } });
const times = <T>(n: number, make: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => make(i));
const OPTIONS = [{ optionId: 'allow', name: 'Allow', kind: 'allow_once' }, { optionId: 'reject', name: 'Reject', kind: 'reject_once' }];

/** A sequence case: `lines` (JSON-RPC lines) as one turn; `bytes` (about) for the report and the runner's bounds. */
function sequence(label: string, lines: () => string[]): PlannedCase {
  const bytes = lines().reduce((n, l) => n + l.length + 1, 0);
  const value: HostileValue = { label, bytes, text: () => JSON.stringify(lines()) };
  const position: Position = { path: [], kind: 'any', variants: [], label: 'turn' };
  return { message: 'sequence', position, value, text: () => value.text() };
}

/** `n` lines, each `line(i)`, ended by `eol` (or CRLF, CR and LF in turn). */
const text = (n: number, line: (i: number) => string, eol?: string) => times(n, (i) => line(i) + (eol ?? ['\r\n', '\r', '\n'][i % 3])).join('');

export function sequenceCases(folder: string): PlannedCase[] {
  const inside = (rel: string) => path.join(folder, rel);
  const writeAndRead = (label: string, target: string) =>
    sequence(`write and read ${label}`, () => [
      request('w', 'fs/write_text_file', { path: target, content: 'pwned\n' }),
      request('r', 'fs/read_text_file', { path: target }),
      update({ sessionUpdate: 'tool_call', toolCallId: 'p', title: 'Edit', kind: 'edit', status: 'pending', content: [{ type: 'diff', path: target, oldText: 'a', newText: 'pwned' }], locations: [{ path: target }] }),
      request('p', 'session/request_permission', { toolCall: { toolCallId: 'p' }, options: OPTIONS }),
    ]);
  const diffUpdate = (id: string, oldText: string, newText: string) => update({ sessionUpdate: 'tool_call', toolCallId: id, title: 'Edit a', kind: 'edit', status: 'pending', content: [{ type: 'diff', path: inside('a'), oldText, newText }] });
  return [
    // Ids reused and never announced.
    sequence('one tool call id announced 5,000 times, its status cycling', () => times(5_000, (i) => update(i % 2 === 0 ? { sessionUpdate: 'tool_call', toolCallId: 'dup', title: `t${i}`, kind: 'edit', status: 'pending' } : { sessionUpdate: 'tool_call_update', toolCallId: 'dup', status: (['in_progress', 'completed', 'failed'] as const)[i % 3] }))),
    sequence('5,000 updates of tool calls never announced', () => times(5_000, (i) => update({ sessionUpdate: 'tool_call_update', toolCallId: `ghost${i}`, status: 'completed', content: [{ type: 'content', content: { type: 'text', text: 'x' } }] }))),
    sequence('20,000 tool calls, each ended', () => times(20_000, (i) => update({ sessionUpdate: i % 2 ? 'tool_call_update' : 'tool_call', toolCallId: `c${i >> 1}`, title: 'Read', kind: 'read', status: i % 2 ? 'completed' : 'pending' }))),
    sequence('100,000 one-character message chunks', () => times(100_000, () => update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'a' } }))),
    sequence('50 reads with one request id', () => times(50, () => request('same', 'fs/read_text_file', { path: inside('a') }))),
    sequence('requests with the ids of the client\'s own requests', () => times(8, (i) => request(i, 'fs/read_text_file', { path: inside('a') }))),
    sequence('200 permission requests for one announced call, at once', () => times(200, (i) => request(`pp${i}`, 'session/request_permission', { toolCall: { toolCallId: 'call-1' }, options: OPTIONS }))),
    sequence('64 permission requests before their announcements, then the announcements', () => [
      ...times(64, (i) => request(`pa${i}`, 'session/request_permission', { toolCall: { toolCallId: `late${i}` }, options: OPTIONS })),
      ...times(64, (i) => update({ sessionUpdate: 'tool_call', toolCallId: `late${i}`, title: `Run ${i}`, kind: 'execute', status: 'pending', rawInput: { command: `echo ${i}` } })),
    ]),
    sequence('a permission request with 100,000 options', () => [request('po', 'session/request_permission', { toolCall: { toolCallId: 'call-1' }, options: times(100_000, (i) => ({ optionId: `o${i}`, name: 'Allow', kind: i % 2 ? 'allow_always' : 'reject_once' })) })]),
    // Diffs: huge, odd line endings, every line changed.
    // (An escaped CR or LF is two bytes of the line: each side 1.5 MiB, the line 6 MiB, under the connection's 8 MiB.)
    sequence('a diff of 1.5 MiB of CR line endings against 1.5 MiB of LF', () => [diffUpdate('d1', '\n'.repeat(1536 * 1024), '\r'.repeat(1536 * 1024))]),
    sequence('a diff with every line changed, mixed line endings, 40,000 lines a side', () => [diffUpdate('d2', text(40_000, (i) => `old ${i}`), text(40_000, (i) => `new ${i}`))]),
    sequence('a permission request carrying a diff with every line changed, 40,000 lines a side', () => [
      request('pd', 'session/request_permission', { toolCall: { toolCallId: 'call-1', content: [{ type: 'diff', path: inside('a'), oldText: text(40_000, (i) => `old ${i}`, '\n'), newText: text(40_000, (i) => `new ${i}`, '\r') }] }, options: OPTIONS }),
    ]),
    sequence('a permission request carrying 8 diffs of 256 KiB with CR line endings', () => [
      request('pd50', 'session/request_permission', { toolCall: { toolCallId: 'call-1', content: times(8, (i) => ({ type: 'diff', path: inside(`f${i}`), oldText: 'x\r'.repeat(128 * 1024), newText: 'y\r'.repeat(128 * 1024) })) }, options: OPTIONS }),
    ]),
    sequence('a write of 4 MiB with CR line endings over a file of LF ones', () => [request('wc', 'fs/write_text_file', { path: inside('a'), content: 'z\r'.repeat(2 * 1024 * 1024) })]),
    // Paths.
    writeAndRead('through .. out of the workspace', inside('../outside.txt')),
    writeAndRead('an absolute path beside the workspace', path.join(path.dirname(folder), 'planted.sh')),
    writeAndRead('a protected file (.env)', inside('.env')),
    writeAndRead('configuration that runs code (.vscode/tasks.json)', inside('.vscode/tasks.json')),
    writeAndRead('a path of 10,000 ../ segments', `${folder}/${'../'.repeat(10_000)}outside.txt`),
    writeAndRead('a path of 1 MiB', inside('a'.repeat(1024 * 1024))),
    writeAndRead('a path of 100,000 directories', inside('d/'.repeat(100_000) + 'f')),
    writeAndRead('a path with a NUL', inside('a\u0000/../../outside.txt')),
    writeAndRead('a relative path', 'a'),
    // Unknown kinds, methods and sessions.
    sequence('1,000 updates of an unknown kind', () => times(1_000, (i) => update({ sessionUpdate: `unknown_${i}`, content: { type: 'text', text: 'x' } }))),
    sequence('tool call content and message chunks of unknown types', () => [
      update({ sessionUpdate: 'tool_call', toolCallId: 'u1', title: 'x', kind: 'nonsense', status: 'weird', content: times(1_000, (i) => ({ type: `kind${i}`, data: 'x' })) }),
      ...times(1_000, (i) => update({ sessionUpdate: 'agent_message_chunk', content: { type: `kind${i}`, text: 'x' } })),
    ]),
    sequence('1,000 requests of unknown methods', () => times(1_000, (i) => request(`m${i}`, `fs/delete_file_${i}`, { path: inside('a') }))),
    sequence('1,000 updates and requests for another session', () => [
      ...times(500, () => update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'x' } }, 'other')),
      ...times(500, (i) => JSON.stringify({ jsonrpc: '2.0', id: `os${i}`, method: 'fs/read_text_file', params: { sessionId: 'other', path: inside('a') } })),
    ]),
    // Many items.
    // Under the structure limit (some 80,000 values), so it reaches the SDK and the session.
    sequence('a plan of 20,000 entries, sent 8 times', () => times(8, () => update({ sessionUpdate: 'plan', entries: times(20_000, (i) => ({ content: `step ${i}`, priority: 'high', status: 'pending' })) }))),
    sequence('a plan of 100,000 entries, sent 5 times', () => times(5, () => update({ sessionUpdate: 'plan', entries: times(100_000, (i) => ({ content: `step ${i}`, priority: 'high', status: 'pending' })) }))),
    sequence('100,000 available commands', () => [update({ sessionUpdate: 'available_commands_update', availableCommands: times(100_000, (i) => ({ name: `c${i}`, description: 'd' })) })]),
    sequence('a tool call with 40,000 locations and 40,000 content items', () => [update({ sessionUpdate: 'tool_call', toolCallId: 'many', title: 'x', kind: 'read', status: 'pending', locations: times(40_000, (i) => ({ path: inside(`f${i}`) })), content: times(40_000, () => ({ type: 'content', content: { type: 'text', text: 'x' } })) })]),
    sequence('200 terminals, every one refused', () => times(200, (i) => request(`t${i}`, 'terminal/create', { command: 'echo', args: [String(i)] }))),
    sequence('output, wait, kill and release of 1,000 terminals never created', () => times(1_000, (i) => request(`tx${i}`, ['terminal/output', 'terminal/wait_for_exit', 'terminal/kill', 'terminal/release'][i % 4] as string, { terminalId: `term${i}` }))),
    sequence('500 concurrent reads of one file and 500 of files that do not exist', () => times(1_000, (i) => request(`rd${i}`, 'fs/read_text_file', { path: inside(i % 2 ? 'a' : `missing${i}`), line: i, limit: 1e9 }))),
    sequence('thought chunks of 1 MiB, 8 times', () => times(8, () => update({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'b'.repeat(1024 * 1024) } }))),
  ];
}
