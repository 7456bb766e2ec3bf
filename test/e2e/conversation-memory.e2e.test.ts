/**
 * What the model remembers, as a user meets it in a real VS Code (code-server) and a real Chromium,
 * with the bundled backend driving the real `openai` SDK against the fake OpenAI endpoint
 * (test/support/fake-openai.ts) on loopback:
 * - a window reload restarts the extension host and with it the bundled backend; the next question
 *   can only be answered from the turns before the reload, and the request the endpoint receives
 *   carries them (read back from the conversation store in the extension's global storage);
 * - with a small context window, long messages make the backend compact the older turns: the chat
 *   says so, and the next request carries the model's summary instead of the old turns.
 *
 * Run: node esbuild.mjs && npx mocha --no-config --require tsx/cjs --timeout 300000 test/e2e/conversation-memory.e2e.test.ts
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { startFakeOpenAI, type ChatRequestBody, type ChatRequestMessage, type FakeOpenAI, type RecordedRequest } from '../support/fake-openai';
import { ChatDriver, waitUntil } from './support/chat-driver';

const ROOT = path.resolve(__dirname, '../..');
const CODEWORD = 'PELICAN-7342';
/** Small enough that a few long messages overflow it; large enough for the built-in tool definitions. */
const CONTEXT_WINDOW = 6000;

interface Harness {
  page: Page | null;
  logTail(lines?: number): string;
  stop(): Promise<void>;
}

/** The text of a chat message, whether the SDK sent a string or content parts. */
function textOf(m: ChatRequestMessage): string {
  if (typeof m.content === 'string') return m.content;
  if (Array.isArray(m.content)) return m.content.map((p) => p.text ?? '').join('');
  return '';
}

const isSummaryRequest = (body: ChatRequestBody): boolean => textOf(body.messages[0] ?? { role: 'system', content: '' }).startsWith('Summarise the conversation');

/** Pids of the bundled backends started for this test's VS Code (found by its data folder). */
function backendPids(dataDir: string): number[] {
  const out = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return out.split('\n')
    .filter((line) => line.includes('dist/backend/cli.js') && line.includes(dataDir))
    .map((line) => Number(line.trim().split(/\s+/, 1)[0]));
}

describe('What the model remembers, in a real VS Code with the bundled backend and the fake endpoint', function () {
  this.timeout(300_000);
  let harness: Harness | undefined;
  let cleanupWorkspace: (() => void) | undefined;
  let fake: FakeOpenAI;
  let page: Page;
  let chat: ChatDriver;
  let userDataDir: string;

  const userMessages = async (): Promise<string[]> => chat.frame.locator('.msg.user .user-text').allInnerTexts();

  /** Sends `text` and waits for the answer; returns the answer as shown. */
  async function ask(text: string): Promise<string> {
    const turn = await chat.send(text, []);
    const answer = await chat.waitForAnswer(turn.answer(), 60_000);
    await chat.waitForIdle();
    return answer;
  }

  /** The chat requests (not summaries) the endpoint received since request number `from`. */
  const turnRequests = (from = 0): RecordedRequest[] => fake.requests.slice(from).filter((r) => !isSummaryRequest(r.body));

  before(async function () {
    for (const built of ['dist/extension.js', 'dist/backend/cli.js', 'media/chat.js']) {
      assert.ok(fs.existsSync(path.join(ROOT, built)), `${built} is missing: run \`node esbuild.mjs\` first`);
    }
    fake = await startFakeOpenAI();
    // @ts-expect-error plain ESM script without types
    const { copyFixtureWorkspace } = (await import('../../scripts/test-workspace.mjs')) as {
      copyFixtureWorkspace(): { workspace: string; cleanup: () => void };
    };
    // @ts-expect-error plain ESM script without types
    const { startVSCode } = (await import('../../scripts/vscode-harness.mjs')) as {
      startVSCode(options: { workspace: string; settings: Record<string, unknown> }): Promise<Harness & { userDataDir: string }>;
    };
    const copy = copyFixtureWorkspace();
    cleanupWorkspace = copy.cleanup;
    const started = await startVSCode({
      workspace: copy.workspace,
      settings: {
        'clientTools.model.baseUrl': fake.baseURL,
        'clientTools.model.name': 'fake-model',
        'clientTools.model.contextWindow': CONTEXT_WINDOW,
      },
    });
    harness = started;
    userDataDir = started.userDataDir;
    assert.ok(started.page, 'the harness opened no page');
    page = started.page;
    chat = new ChatDriver(page);
    try {
      await chat.open();
    } catch (e) {
      await chat.screenshot('memory-failed-open').catch(() => undefined);
      throw new Error(`the chat did not connect: ${(e as Error).message}\ncode-server log:\n${harness.logTail(30)}`);
    }
  });

  after(async () => {
    await harness?.stop();
    cleanupWorkspace?.();
    await fake?.close();
  });

  afterEach(async function () {
    if (this.currentTest?.state !== 'failed' || !harness?.page) return;
    await chat.screenshot(`memory-failed-${this.currentTest.title.replace(/\W+/g, '-').slice(0, 60)}`).catch(() => undefined);
    console.error(`code-server log:\n${harness.logTail(30)}`);
  });

  it('after a window reload (a new extension host and a new bundled backend) the model still knows the earlier turns', async () => {
    fake.enqueue({ text: 'Noted: I will remember it.' });
    assert.match(await ask(`Please remember the codeword ${CODEWORD}.`), /Noted/);
    const conversations = path.join(userDataDir, 'User', 'globalStorage');
    const before = backendPids(conversations);
    assert.equal(before.length, 1, `one bundled backend runs before the reload (found pids ${before.join(', ') || 'none'})`);

    await page.reload();
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    // The side bar comes back with the chat in it (a click on the activity bar would close it).
    await chat.frame.locator('.conn-dot.conn-connected').waitFor({ timeout: 60_000 });
    await waitUntil(async () => JSON.stringify(await userMessages()) === JSON.stringify([`Please remember the codeword ${CODEWORD}.`]), {
      timeoutMs: 30_000,
      describe: async () => `after the reload the transcript shows ${JSON.stringify(await userMessages())}`,
    });
    const after = await waitUntil(() => {
      const pids = backendPids(conversations);
      return pids.length === 1 && !before.includes(pids[0]) ? pids : undefined;
    }, { timeoutMs: 30_000, describe: () => `the backends running are ${JSON.stringify(backendPids(conversations))}, before the reload ${JSON.stringify(before)}` });
    assert.notEqual(after[0], before[0]);

    // The fake model answers from what the request carries, as a real one would.
    const seen = fake.requests.length;
    fake.enqueue((request) => {
      const earlier = request.body.messages.some((m) => m.role === 'user' && textOf(m).includes(CODEWORD));
      return { text: earlier ? `The codeword was ${CODEWORD}.` : 'I do not know any codeword.' };
    });
    assert.equal(await ask('What was the codeword?'), `The codeword was ${CODEWORD}.`);

    const [request] = turnRequests(seen);
    assert.ok(request, 'the endpoint received the question');
    const turns = request.body.messages.filter((m) => m.role === 'user' || m.role === 'assistant').map((m) => `${m.role}: ${textOf(m)}`);
    assert.deepEqual(turns.slice(-3), [
      `user: Please remember the codeword ${CODEWORD}.`,
      'assistant: Noted: I will remember it.',
      'user: What was the codeword?',
    ]);
    assert.deepEqual(await userMessages(), [`Please remember the codeword ${CODEWORD}.`, 'What was the codeword?']);
  });

  it('long turns over a small context window: the chat says the older turns were summarised, and the next request carries the summary', async () => {
    await chat.newChat();
    await waitUntil(async () => (await userMessages()).length === 0, { describe: async () => `still shows ${JSON.stringify(await userMessages())}` });
    // Summary requests get the summary; every turn gets a short answer.
    const reply = (request: RecordedRequest) => isSummaryRequest(request.body)
      ? { text: 'SUMMARY: the user shared long notes about the lighthouse.' }
      : { text: 'Thanks, noted.' };
    const filler = (n: number) => `Note ${n} about the lighthouse: ${Array.from({ length: 700 }, (_, i) => `word${(i * 7 + n) % 97}`).join(' ')}`;
    const seen = fake.requests.length;
    fake.enqueue(...Array.from({ length: 20 }, () => reply));
    let sent = 0;
    while ((await chat.notices().filter({ hasText: "To fit the model's context window" }).count()) === 0) {
      assert.ok(sent < 6, `no compaction notice after ${sent} long messages`);
      await ask(filler(++sent));
    }
    const notice = await chat.notices().filter({ hasText: "To fit the model's context window" }).first().innerText();
    assert.match(notice, /\d+ earlier messages? (was|were) summarised by the model: [\d,]+ → [\d,]+ tokens\./);
    await chat.screenshot('memory-compaction-notice');

    // The request of the turn that compacted carries the summary, not the first note, and fits the window.
    const summaries = fake.requests.slice(seen).filter((r) => isSummaryRequest(r.body));
    assert.equal(summaries.length, 1, 'one summary request');
    assert.match(textOf(summaries[0].body.messages[1]), /Note 1 about the lighthouse/);
    const last = turnRequests(seen).at(-1)!;
    const texts = last.body.messages.map(textOf);
    assert.ok(texts.some((t) => t.includes('SUMMARY: the user shared long notes about the lighthouse.')), 'the summary is in the request');
    assert.ok(!texts.some((t) => t.includes('Note 1 about the lighthouse')), 'the first note itself is no longer sent');
    assert.ok(texts.some((t) => t.includes(`Note ${sent} about the lighthouse`)), 'the newest note is sent whole');
  });
});
