/**
 * The extension host's side of its chat webview under test in a process of its own: every message
 * the page posts parsed by `receiveFromWebview` (src/protocol/webview.ts) as the chat view does, and
 * the thread messages (`ready`'s show, switch, rename, delete, `transcriptPatch`) handed to the real
 * `ChatThreads` (src/vscode/chat/threads.ts, with its `TranscriptCopy` and thread index) in a
 * temporary folder, which writes the thread's transcript file. A patch "on the copy" first gets a
 * whole transcript of the thread at revision `baseRevision`, as the page sends after a load; a patch
 * the copy took is followed by two more built on it (one that changes nothing, one that drops the
 * first item), which must be taken too. Each message is answered: accepted, refused with a code, or
 * (a refused patch on a copy) the page asked for the whole transcript.
 *
 *   argv: {"threadId": the thread the samples name, "baseRevision": number,
 *          "plant"?: "freeze" | "leak" (a planted defect on each message parsed, for planted.fuzz.ts)}
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { receiveFromWebview, type TranscriptPatch } from '../../../src/protocol/webview';
import type { ChatViewProvider, ThreadRequest } from '../../../src/vscode/chat/chatView';
import { ChatThreads } from '../../../src/vscode/chat/threads';
import { initialState, reduce, type ChatState } from '../../../src/webview/state';
import { transcriptParts } from '../../../src/webview/stateJson';
import { onRequest, ready, serveHealth } from '../support/hostAgent';
import { planted, type Plant } from '../support/planted';

/** The whole transcript the page sends of a thread with a few items, at `revision`. */
function wholeTranscript(threadId: string, revision: number): TranscriptPatch {
  let state: ChatState = { ...initialState(), threadId };
  for (let i = 0; i < 5; i++) state = reduce(state, { type: 'notice', text: `notice ${i}` });
  const parts = transcriptParts(state, Number.MAX_SAFE_INTEGER);
  return { type: 'transcriptPatch', threadId, revision, base: null, drop: 0, keep: 0, set: [], append: [...parts.texts], rest: parts.rest, savedAt: 1 };
}

async function main(): Promise<void> {
  const { plant, threadId: fuzzThread, baseRevision } = JSON.parse(process.argv[2]) as { plant?: Plant; threadId: string; baseRevision: number };
  let handler: (r: ThreadRequest) => void = () => undefined;
  let resyncs: string[] = [];
  let warnings: string[] = [];
  const chat = {
    onDidThreadRequest: (f: (r: ThreadRequest) => void) => ((handler = f), { dispose: () => undefined }),
    setThreads: () => undefined,
    showThread: () => undefined,
    resyncTranscript: (id: string) => resyncs.push(id),
  } as unknown as ChatViewProvider;
  let dir = '';
  let threads: ChatThreads | undefined;
  /** The thread index with `fuzzThread` current (again, after a case deleted it). */
  const open = async (): Promise<ChatThreads> => {
    if (threads && threads.currentId === fuzzThread) return threads;
    if (threads) {
      await threads.flush();
      threads.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
    dir = mkdtempSync(path.join(tmpdir(), 'fuzz-chat-threads-'));
    threads = new ChatThreads({ dir, chat, log: { warn: (m: string) => warnings.push(m) }, forgetThread: () => undefined, adoptId: fuzzThread });
    return threads;
  };
  const file = () => path.join(dir, `${fuzzThread}.json`);
  /** Hands a patch to the threads; what became of it. */
  const patch = async (t: ChatThreads, p: TranscriptPatch): Promise<'written' | 'refused' | 'unanswered' | 'not saved'> => {
    resyncs = [];
    warnings = [];
    handler(p);
    await t.flush();
    if (warnings.some((w) => w.includes('refused a transcript change (INVALID_MESSAGE'))) return p.base === null || resyncs.includes(p.threadId) ? 'refused' : 'unanswered';
    if (warnings.some((w) => w.includes('was not saved'))) return 'not saved';
    return (await readFile(file(), 'utf8').catch(() => undefined)) !== undefined ? 'written' : 'unanswered';
  };

  onRequest('message', async (payload) => {
    const { text, onCopy } = payload as { text: string; onCopy: boolean };
    const t = await open();
    if (onCopy && (await patch(t, wholeTranscript(fuzzThread, baseRevision))) !== 'written') return { answer: 'unanswered: the whole transcript before the case was not written' };
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      return { answer: 'refused: not JSON (the webview posts structured clones)' };
    }
    const received = receiveFromWebview(raw);
    if (!received.ok) return { answer: `refused ${received.error.code}` };
    const message = received.message;
    planted(plant, message);
    if (message.type === 'ready') {
      handler({ type: 'shown', threadId: message.threadId, savedAt: message.savedAt });
      await t.flush();
      return { answer: 'accepted ready' };
    }
    if (message.type === 'switchThread' || message.type === 'renameThread' || message.type === 'deleteThread') {
      handler(message);
      await t.flush();
      return { answer: `accepted ${message.type}` };
    }
    if (message.type !== 'transcriptPatch') return { answer: `accepted ${message.type}` };
    const first = await patch(t, message);
    if (first === 'unanswered') return { answer: 'unanswered: a patch neither written nor refused', file: file() };
    // Its thread is there: a patch the copy took and the index did not write leaves the page untold.
    if (first === 'not saved') return { answer: 'unanswered: a patch taken by the copy but not written', file: file() };
    if (first === 'refused') return { answer: 'accepted transcriptPatch, refused', file: file() };
    // Built on what the copy took: a patch that changes nothing, then one that drops the first item.
    const items = (JSON.parse(await readFile(file(), 'utf8')) as { items: unknown[] }).items.length;
    const next = (revision: number, drop: number): TranscriptPatch => ({ type: 'transcriptPatch', threadId: message.threadId, revision: revision + 1, base: revision, drop, keep: items - drop, set: [], append: [], savedAt: message.savedAt });
    const same = await patch(t, next(message.revision, 0));
    const dropped = items > 0 ? await patch(t, next(message.revision + 1, 1)) : 'written';
    if (same !== 'written' || dropped !== 'written') return { answer: `unanswered: patches built on the copy it took were ${same}, ${dropped}`, file: file() };
    return { answer: 'accepted transcriptPatch, written, then 2 patches on it written', file: file() };
  });
  ready({ healthUrl: await serveHealth() }, async () => {
    await threads?.flush();
    rmSync(dir, { recursive: true, force: true });
  });
}

void main();
