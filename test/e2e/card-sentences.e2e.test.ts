/**
 * Cards readable at 300 px (issue 29), in a real VS Code (code-server, real Chromium, the default
 * 300 px side bar) with the offline demo model: each tool card leads with one line naming the
 * action and its target ("Read notes.md", "Ran `ls`", "Delete hello.txt" while it waits for
 * permission) that fits the card, the tool's name and where it ran on the line under it, and no
 * part of any card reaches past the card's border, at 300 px and with the chat 250 px wide.
 *
 * Screenshots go to test-results/card-sentences-*.png.
 *
 * Run alone: npm run build && npx mocha --no-config --require tsx/cjs --extension ts --timeout 300000 --exit test/e2e/card-sentences.e2e.test.ts
 */
import assert from 'node:assert/strict';
import type { FrameLocator } from 'playwright-core';
import { useDemoChatSession } from './support/demo-session';

// Browser globals used inside page callbacks (the root tsconfig has no DOM lib).
interface Box { left: number; right: number; width: number; height: number }
interface PageElement {
  className: string;
  textContent: string | null;
  scrollWidth: number;
  clientWidth: number;
  style: { width: string };
  getBoundingClientRect(): Box;
  querySelectorAll(selectors: string): ArrayLike<PageElement>;
}
declare const document: { querySelectorAll(selectors: string): ArrayLike<PageElement> };

/** Every element of a tool card (and the approval card) whose box reaches past its card's border, described. */
async function overflowing(frame: FrameLocator): Promise<string[]> {
  return frame.locator('body').evaluate(() => {
    const out: string[] = [];
    for (const card of Array.from(document.querySelectorAll('.tool-card, section.approval'))) {
      const box = card.getBoundingClientRect();
      if (card.scrollWidth > card.clientWidth + 1) out.push(`${card.className} scrolls sideways (${card.scrollWidth} > ${card.clientWidth})`);
      for (const el of Array.from(card.querySelectorAll('summary *, .approval-message, .approval-buttons *'))) {
        const r = el.getBoundingClientRect();
        if (r.width === 0 || r.height === 0) continue;
        if (r.right > box.right + 0.5 || r.left < box.left - 0.5) out.push(`"${(el.textContent ?? '').slice(0, 40)}" (${el.className}) spans ${r.left.toFixed(0)}–${r.right.toFixed(0)}, the card ${box.left.toFixed(0)}–${box.right.toFixed(0)}`);
      }
    }
    return out;
  });
}

/** Whether the card's sentence shows whole (not cut with an ellipsis). */
function sentenceFits(frame: FrameLocator, index: number): Promise<boolean> {
  return frame.locator('.tool-card .card-sentence').nth(index).evaluate((el) => (el as unknown as PageElement).scrollWidth <= (el as unknown as PageElement).clientWidth);
}

describe('Cards at 300 px in a real VS Code: a sentence that fits, nothing past the border at 250 px', function () {
  this.timeout(300_000);
  const session = useDemoChatSession('card-sentences');

  it('"Read notes.md", "Ran `ls`" and "Delete hello.txt" (awaiting permission) lead their cards whole; no card overflows at 300 px or 250 px', async () => {
    const { chat } = session;
    const read = await chat.send('read notes.md', ['ReadFile']);
    await chat.waitForCardStatus(read.card('ReadFile'), 'succeeded');
    await chat.waitForIdle();
    assert.equal(await read.card('ReadFile').locator('.card-sentence').innerText(), 'Read notes.md');
    assert.equal(await read.card('ReadFile').locator('.tool-name').innerText(), 'ReadFile');

    const run = await chat.send('run `ls`', ['RunInTerminal']);
    await chat.approval.waitFor({ state: 'visible', timeout: 30_000 });
    await chat.approvalButton('Allow').click();
    await chat.waitForCardStatus(run.card('RunInTerminal'), 'succeeded', 60_000);
    await chat.waitForIdle(60_000);
    assert.equal(await run.card('RunInTerminal').locator('.card-sentence').innerText(), 'Ran `ls`');

    const del = await chat.send('delete hello.txt', ['DeleteFile']);
    await chat.waitForCardStatus(del.card('DeleteFile'), 'awaiting-permission');
    await chat.approval.waitFor({ state: 'visible', timeout: 30_000 });
    assert.equal(await del.card('DeleteFile').locator('.card-sentence').innerText(), 'Delete hello.txt');
    assert.equal(await del.card('DeleteFile').locator('.tool-status').innerText(), 'Awaiting permission');

    const width = await chat.frame.locator('body').evaluate((b) => (b as unknown as PageElement).clientWidth);
    assert.ok(width >= 260 && width <= 300, `the chat is ${width} px wide (the default side bar)`);
    for (let i = 0; i < 3; i++) assert.ok(await sentenceFits(chat.frame, i), `sentence ${i} is cut at ${width} px`);
    assert.deepEqual(await overflowing(chat.frame), [], `overflow at ${width} px`);
    await session.screenshot('1-cards-300px');

    await chat.frame.locator('body').evaluate((b) => { (b as unknown as PageElement).style.width = '250px'; });
    assert.deepEqual(await overflowing(chat.frame), [], 'overflow at 250 px');
    await session.screenshot('2-cards-250px');
    await chat.frame.locator('body').evaluate((b) => { (b as unknown as PageElement).style.width = ''; });

    await chat.approvalButton('Deny').click();
    await chat.waitForCardStatus(del.card('DeleteFile'), 'denied');
    await chat.waitForIdle();
  });
});
