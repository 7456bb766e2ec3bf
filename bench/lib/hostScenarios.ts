/**
 * The work of the host-blocking benchmark's scenarios, shared by the parent (hostBlocking.ts) and
 * the extension host's process (host-child.ts): the 3.9 MB file and the proposal for OpenDiff, and a
 * saved-threads folder of 100 threads at the store's caps.
 */
import { ThreadIndex } from '../../src/vscode/chat/threadIndex';

export const BLOB_BYTES = 16 * 1024 * 1024;
export const DIFF_FILE = 'src/big.ts';
const DIFF_BYTES = 3_900_000;
export const SAVED_THREADS = 100;

/** 3.9 MB of source lines, the proposal changing every 50th line: as a request, just under the 4 MiB of JSON the extension accepts in one message (MAX_JSON_BYTES). */
export function diffTexts(): { before: string; after: string } {
  const before: string[] = [];
  const after: string[] = [];
  let bytes = 0;
  for (let i = 0; bytes < DIFF_BYTES - 100; i++) {
    const line = `export const value${i} = compute(${i % 97}, "${'x'.repeat(i % 40)}"); // line ${i}`;
    const proposed = i % 50 === 7 ? `export const value${i} = computeFast(${i % 97}); // changed ${i}` : line;
    bytes += Math.max(line.length, proposed.length) + 1;
    before.push(line);
    after.push(proposed);
  }
  return { before: `${before.join('\n')}\n`, after: `${after.join('\n')}\n` };
}

/**
 * 100 saved threads as the chat keeps them: the index and a transcript each, 640 KB on average
 * (the store's 64 MB total cap over its 100 threads), the current one at the 4 MB per-thread cap.
 */
export async function savedThreadsFixture(dir: string): Promise<void> {
  let clock = 1_000;
  const index = ThreadIndex.open(dir, { now: () => ++clock });
  for (let i = 0; i < SAVED_THREADS; i++) {
    if (i > 0) index.create();
    const id = index.current.id;
    index.noteUserMessage(id, `Thread ${i}: fix the parser`);
    index.saveTranscript(id, transcript(i === SAVED_THREADS - 1 ? 3_900_000 : 600_000), clock);
  }
  await index.flush();
}

/** What opening the chat does with the store: read the index, load the current transcript, hand it to the view (serialized, as postMessage does). */
export async function showSavedThread(dir: string): Promise<number> {
  const index = ThreadIndex.open(dir);
  index.list();
  const saved = await index.loadTranscript(index.current.id);
  return JSON.stringify({ type: 'showThread', threadId: index.current.id, transcript: saved }).length;
}

function transcript(chars: number): string {
  const turns: unknown[] = [];
  let size = 0;
  for (let i = 0; size < chars; i++) {
    const turn = i % 2
      ? { role: 'assistant', id: `m${i}`, text: `Here is what I found in turn ${i}. `.repeat(20), tools: [{ callId: `c${i}`, name: 'ReadFile', status: 'succeeded', result: 'line of code;\n'.repeat(200) }] }
      : { role: 'user', id: `m${i}`, text: `Please look at file ${i} and explain it.` };
    size += JSON.stringify(turn).length + 1;
    turns.push(turn);
  }
  return JSON.stringify({ version: 1, turns });
}
