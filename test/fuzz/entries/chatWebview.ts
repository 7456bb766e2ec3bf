/**
 * Entry point: the extension host from its chat webview. The page renders model and agent text, so
 * a compromised page is in the threat model (docs/SECURITY.md): every message type the host accepts
 * (`WebviewToHost`, parsed by `receiveFromWebview`), every position of its zod schema, up to the
 * sizes the schemas allow and past them, goes to the host's side in its own process
 * (hosts/chatWebviewHost.ts), where the thread messages reach the real `ChatThreads` and its
 * transcript copy. `transcriptPatch` is planned twice: as a whole transcript, and as a patch on the
 * copy of a whole transcript the page sent first (followed by two patches built on what it took).
 * Each case must be answered (accepted, or refused with a code), and the transcript file the host
 * wrote must stay one the view reads back: JSON of an object with its items, within
 * MAX_TRANSCRIPT_CHARS (read and checked here, in the fuzzer's process, as the view's work).
 */
import { readFile } from 'node:fs/promises';
import { MAX_TRANSCRIPT_CHARS, WebviewToHost } from '../../../src/protocol/webview';
import { restoreState } from '../../../src/webview/state';
import { withFragment } from '../support/hostile';
import { planCases, type MessagePlan, type PlannedCase } from '../support/plan';
import type { Plant } from '../support/planted';
import type { EntryDriver } from '../support/runner';
import type { Json, Shape } from '../support/shape';
import { Target } from '../support/target';
import { messageShapes } from '../support/zodShapes';

const THREAD_ID = '6f1c2a4e-0b7d-4c55-9a31-5e8d2f40b7c1';
const BASE_REVISION = 1000;
/** Bytes a message may have: twice the largest the schemas allow (a whole transcript), so past-the-limit values go too. */
const LIMIT = 2 * MAX_TRANSCRIPT_CHARS;
const ON_COPY = 'transcriptPatch on the copy';
const HELD = 'transcriptPatch on the copy, the value inside an item';

const ITEM = '{"kind":"notice","id":900,"text":"from the fuzzer"}';
const REST = '{"nextId":901,"threadId":null}';

/** The sample with the fuzzed thread, and for a patch item texts the copy takes. */
function fixedFor(message: string): (sample: Json) => Json {
  return (sample) => {
    const s = sample as Record<string, Json>;
    const withThread = 'threadId' in s ? { ...s, threadId: THREAD_ID } : s;
    if (message === 'transcriptPatch') return { ...withThread, revision: BASE_REVISION, base: null, drop: 0, keep: 0, set: [], append: [ITEM], rest: REST, savedAt: 2 };
    if (message === ON_COPY) return { ...withThread, revision: BASE_REVISION + 1, base: BASE_REVISION, drop: 1, keep: 3, set: [[0, ITEM]], append: [ITEM], rest: REST, savedAt: 2 };
    return withThread;
  };
}

/**
 * The value of each item-text case, inside an item the copy takes (an object): as the text of the
 * item a patch on the copy replaces (`set`'s tuples have no positions of their own in the shape), and
 * as a key of the rest, so what the host writes holds every value class, not only what it refused.
 */
function heldInItems(cases: readonly PlannedCase[], sample: Json): PlannedCase[] {
  return cases.filter((c) => c.message === ON_COPY && c.position.label === 'append[]').flatMap((c) => [
    { ...c, message: HELD, position: { ...c.position, path: ['set', 0, 1], label: "set[][1] (an item's text)" }, text: () => withFragment(sample, ['set', 0, 1], JSON.stringify(`{"kind":"notice","id":900,"text":${c.value.text()}}`)) },
    { ...c, message: HELD, position: { ...c.position, path: ['rest'], label: 'rest (a key of it)' }, text: () => withFragment(sample, ['rest'], JSON.stringify(`{"nextId":901,"note":${c.value.text()}}`)) },
  ]);
}

/**
 * Item texts whose joined transcript (commas, `{"items":[…]}`) passes MAX_TRANSCRIPT_CHARS by a few
 * characters while the texts are within it: a whole transcript at the parser's bound, and a patch
 * on the copy at the bound of the copy's own count. The copy must refuse what the thread index would
 * not write.
 */
function joinedPastTheBound(shape: Shape): PlannedCase[] {
  const position = shape.positions.find((p) => p.label === 'append')!;
  const item = (chars: number) => `{"kind":"notice","id":900,"text":"${'x'.repeat(chars - 36)}"}`;
  const small = Array.from({ length: 100 }, () => item(40));
  return (['transcriptPatch', ON_COPY] as const).map((message) => {
    // Whole: the texts with the rest at the parser's bound. On the copy: the texts, their commas and the rest 3 under it.
    const chars = message === ON_COPY ? MAX_TRANSCRIPT_CHARS - REST.length - (small.length + 1) - 3 : MAX_TRANSCRIPT_CHARS - REST.length;
    const text = JSON.stringify([item(chars - small.length * 40), ...small]);
    const value = { label: `items joined past the limit (${message === ON_COPY ? 'on the copy' : 'whole'})`, bytes: text.length, text: () => text };
    const sample = { ...(fixedFor(message)(shape.sample) as Record<string, Json>), drop: 0, keep: 0, set: [] };
    return { message, position, value, text: () => withFragment(sample, ['append'], text) };
  });
}

/** What the view does with the file: parse it and restore a state from it. Undefined when it reads. */
function unreadable(text: string): string | undefined {
  if (text.length > MAX_TRANSCRIPT_CHARS) return `${text.length} characters, over ${MAX_TRANSCRIPT_CHARS}`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    return `not JSON (${e instanceof Error ? e.message.slice(0, 80) : ''})`;
  }
  if (typeof parsed !== 'object' || parsed === null || !Array.isArray((parsed as { items?: unknown }).items)) return 'not an object with its items';
  try {
    restoreState(parsed);
  } catch (e) {
    return `the view's restore threw (${e instanceof Error ? e.message.slice(0, 80) : ''})`;
  }
  return undefined;
}

/** `plant`: a defect planted in the process under test (planted.fuzz.ts). */
export function chatWebview(plant: Plant = 'none'): EntryDriver {
  return {
    name: 'extension host from its chat webview',
    start: () => Target.start('chatWebviewHost.ts', { plant, threadId: THREAD_ID, baseRevision: BASE_REVISION }),
    cases() {
      const shapes = messageShapes(Object.fromEntries(WebviewToHost.options.map((schema, i) => [i, schema])));
      const plans: MessagePlan[] = shapes.flatMap(({ type, shape }) => {
        const names = type === 'transcriptPatch' ? [type, ON_COPY] : [type];
        return names.map((message) => ({ message, shape, limit: LIMIT, fixed: fixedFor(message) }));
      });
      const cases = planCases('extension host from its chat webview', plans);
      const patchShape = shapes.find((m) => m.type === 'transcriptPatch')!.shape;
      return [...cases, ...heldInItems(cases, fixedFor(ON_COPY)(patchShape.sample)), ...joinedPastTheBound(patchShape)];
    },
    async run(c: PlannedCase, target) {
      const reply = await target.request<{ answer: string; file?: string }>('message', { text: c.text(), onCopy: c.message !== 'transcriptPatch' && c.message.startsWith('transcriptPatch') }, 60_000).catch((e: unknown) => e as Error);
      // The host's handler threw: the page's message got no answer.
      if (reply instanceof Error) return target.alive ? `unanswered: ${reply.message.slice(0, 160)}` : `error: ${reply.message}`;
      const { answer, file } = reply;
      if (answer.startsWith('unanswered')) return answer;
      const written = file === undefined ? undefined : await readFile(file, 'utf8').catch(() => undefined);
      const bad = written === undefined ? undefined : unreadable(written);
      return bad ? `${answer}; the view cannot read the transcript written: ${bad}` : answer;
    },
    stop: async () => {},
  };
}
