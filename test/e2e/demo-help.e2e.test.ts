/**
 * What the offline demo's help says against what works (issue 29, item 10): in a real VS Code
 * (code-server, real Chromium) on the sample workspace with the bundled backend's demo model, a new
 * user asks for help and then sends every example it lists, in its order, allowing what asks
 * (prompts, reviews, questions) as a user following the list would. Each must end in an answer
 * that did the thing or says plainly why there was nothing to do, never in a failure or "I did not
 * understand". The answers' first lines are printed for the record.
 *
 * Run alone: npm run build && npx mocha --no-config --require tsx/cjs --extension ts --timeout 300000 --exit test/e2e/demo-help.e2e.test.ts
 */
import assert from 'node:assert/strict';
import { waitUntil } from './support/chat-driver';
import { useDemoChatSession } from './support/demo-session';

/** What an answer says when the request did not work. */
const FAILED = /I did not understand|could not|failed|went wrong|NOT_FOUND|not found|does not exist|no symbol named|declined|I tried several tools/i;

describe("the offline demo's help, example by example, in a real VS Code", function () {
  this.timeout(600_000);
  const session = useDemoChatSession('demo-help');

  /** Sends `text`, allows whatever asks on the way, and returns the answer once the run is over. */
  async function follow(text: string): Promise<string> {
    const { chat } = session;
    const turn = await chat.send(text, []);
    const answer = turn.answer();
    await waitUntil(async () => {
      if (await chat.approval.isVisible()) {
        const allow = chat.approvalButton('Allow');
        if (await allow.isEnabled()) await allow.click();
      }
      const review = chat.frame.locator('section.review').last();
      if (await review.isVisible()) await review.locator('button.review-accept').click();
      const question = chat.frame.locator('.question-banner:not([hidden]) .question-buttons button').first();
      if (await question.isVisible()) await question.click();
      return (await answer.count()) > 0 && !(await answer.getAttribute('class'))?.includes('streaming') && (await chat.sendButton.isVisible());
    }, { timeoutMs: 60_000, intervalMs: 250, describe: async () => `"${text}" never finished; the chat shows ${JSON.stringify(await chat.frame.locator('.msg').last().innerText())}` });
    return (await answer.locator('.markdown').innerText()).trim();
  }

  it('every example the help lists works on the sample workspace, in the order listed', async () => {
    const help = await follow('help');
    const examples = [...help.matchAll(/^[-•]?\s*"(.+)"$/gm)].map((m) => m[1]);
    assert.ok(examples.length >= 15, `the help lists ${examples.length} examples: ${help}`);
    const failures: string[] = [];
    for (const example of examples) {
      const said = await follow(example);
      console.log(`      ${example} → ${said.split('\n')[0].slice(0, 140)}`);
      if (FAILED.test(said)) failures.push(`${example} → ${said.split('\n')[0]}`);
    }
    assert.deepEqual(failures, [], 'examples the help lists that do not work');
  });
});
