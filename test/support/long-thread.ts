/**
 * A long conversation for the chat view, built the way the view builds one: the backend's run
 * events, converted as the host converts them (toChatRunEvent), through the view's own reducer, and
 * saved as the view saves it (transcriptOf). What the host sends back on `showThread` is that
 * transcript, so the bench (bench/longThreads.ts) and the UI test open exactly what a user would.
 */
import { Messages } from '../../src/protocol/schemas';
import type { RunEvent } from '../../src/protocol/types';
import { HostToWebview } from '../../src/protocol/webview';
import { toChatRunEvent } from '../../src/vscode/chat/chatBridge';
import { initialState, reduce, transcriptOf, type ChatAction, type ChatState } from '../../src/webview/state';

export interface LongThreadOptions {
  turns: number;
  toolCards: number;
  /** Every nth card's result is `largeResultChars` long; the others a couple of KB. */
  largeEvery: number;
  largeResultChars: number;
}

export const LONG_THREAD: LongThreadOptions = { turns: 500, toolCards: 200, largeEvery: 10, largeResultChars: 1024 * 1024 };

export const LONG_THREAD_ID = '6f1c2a4e-0b7d-4c55-9a31-5e8d2f40b7c1';

const toBase64 = (b: Uint8Array): string => Buffer.from(b).toString('base64');

function hostEvent(event: RunEvent): ChatAction {
  const wire = Messages.ServerToClient.parse(event) as RunEvent;
  return HostToWebview.parse({ type: 'runEvent', event: toChatRunEvent(wire, toBase64) });
}

/** An answer of about 700 characters with the markdown answers have: a list, code, a link. */
export function answerText(turn: number): string {
  return [
    `Turn ${turn}: I looked at **src/module${turn % 37}.ts** and the tests next to it.`,
    '',
    `1. The function \`parse${turn}\` reads the input once and keeps no state.`,
    '2. Its callers pass a trimmed string, so the check on line 12 is redundant.',
    '3. The test covers the empty case but not a string of spaces.',
    '',
    '```ts',
    `export function parse${turn}(input: string): number {`,
    '  const value = Number(input);',
    '  if (!Number.isFinite(value)) throw new Error(`not a number: ${input}`);',
    '  return value;',
    '}',
    '```',
    '',
    'See [the docs](https://example.com/docs) for the rules this follows; I changed nothing yet.',
  ].join('\n');
}

/** A tool result of `chars` characters: numbered source lines, as ReadFile returns them. */
export function resultText(card: number, chars: number): string {
  const lines: string[] = [];
  let length = 0;
  for (let i = 1; length < chars; i++) {
    const line = `${String(i).padStart(6)}  const value${card}_${i} = compute(${i}, "card ${card}"); // line ${i}`;
    lines.push(line);
    length += line.length + 1;
  }
  return lines.join('\n').slice(0, chars);
}

/** The host → view messages of the whole conversation, turn by turn. */
export function* longThreadMessages(o: LongThreadOptions = LONG_THREAD): Generator<ChatAction> {
  let card = 0;
  for (let turn = 1; turn <= o.turns; turn++) {
    const ref = { threadId: LONG_THREAD_ID, runId: `run-${turn}` };
    yield { type: 'userMessage', text: `Question ${turn}: what does parse${turn} do with a string of spaces?` };
    yield hostEvent({ type: 'runStarted', ...ref, model: 'bench-model' });
    // The cards spread evenly over the turns.
    const cardsBy = Math.floor((turn * o.toolCards) / o.turns);
    for (; card < cardsBy; card++) {
      const callId = `call-${card}`;
      const chars = card % o.largeEvery === o.largeEvery - 1 ? o.largeResultChars : 2000;
      yield hostEvent({ type: 'toolCallStarted', ...ref, callId, toolName: 'ReadFile', arguments: { path: `src/module${card}.ts` }, executor: 'server' });
      yield hostEvent({ type: 'toolCallEnded', ...ref, callId, outcome: 'succeeded', durationMs: 12, content: [{ type: 'text', text: resultText(card, chars) }] });
    }
    yield hostEvent({ type: 'textDelta', ...ref, text: answerText(turn) });
    yield hostEvent({ type: 'runFinished', ...ref, reason: 'completed' });
  }
}

/** The view's state after the conversation, and the transcript it saves for it (parsed JSON, as `showThread` carries it). */
export function longThread(o: LongThreadOptions = LONG_THREAD): { state: ChatState; transcript: unknown } {
  let state: ChatState = { ...initialState(), connection: { connection: 'connected', model: 'bench-model' }, threadId: LONG_THREAD_ID };
  for (const message of longThreadMessages(o)) state = reduce(state, message);
  return { state, transcript: JSON.parse(transcriptOf(state)) };
}
