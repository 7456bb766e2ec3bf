/**
 * Every cut of a long result tells the truth about the original (issue 29), in a real VS Code
 * (code-server, real Chromium) with the offline demo model: a 4,001-line, 484,121-byte file read
 * through ReadFile. The card's result keeps its start and says how large the file is (characters,
 * bytes, lines), though the extension clips what it posts and the chat clips what it keeps; the
 * model's copy (a head and tail around a marker) names the whole, so the demo's sentence gives the
 * file's size, not the excerpt's.
 *
 * Screenshots go to test-results/truthful-cuts-*.png.
 *
 * Run alone: npm run build && npx mocha --no-config --require tsx/cjs --extension ts --timeout 300000 --exit test/e2e/truthful-cuts.e2e.test.ts
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { useDemoChatSession } from './support/demo-session';

/** 4,001 lines of 120 bytes (three of them two-byte characters) and a newline each: 484,121 bytes, like the 481,826-byte file. */
function bigFile(): string {
  const lines: string[] = [];
  for (let i = 1; i <= 4001; i++) lines.push(`${String(i).padStart(5, '0')} ${'é'.repeat(3)} ${'x'.repeat(107)}`);
  return `${lines.join('\n')}\n`;
}

describe('Truthful cuts in a real VS Code: a long result says how large the original is, on the card and in the answer', function () {
  this.timeout(300_000);
  const session = useDemoChatSession('truthful-cuts');

  it('ReadFile of a 4,001-line file: the card\'s result ends with the file\'s size, and the demo answer gives its lines and bytes', async () => {
    const text = bigFile();
    const bytes = Buffer.byteLength(text);
    fs.writeFileSync(path.join(session.workspace, 'big.txt'), text);
    const { chat } = session;
    const turn = await chat.send('read big.txt', ['ReadFile']);
    await chat.waitForCardStatus(turn.card('ReadFile'), 'succeeded');
    const answer = await chat.waitForAnswer(turn.answer());
    const thousands = (n: number) => n.toLocaleString('en-US');
    assert.match(answer, new RegExp(`^big\\.txt has 4,001 lines \\(${thousands(bytes)} bytes\\); I was given its start and end, lines [\\d,]+ to [\\d,]+ were left out`));
    await chat.waitForIdle();

    const card = turn.card('ReadFile');
    await card.locator('summary').click();
    const result = card.locator('.result-text').first();
    await result.waitFor({ state: 'visible', timeout: 10_000 });
    const shown = await result.innerText();
    assert.ok(shown.startsWith('00001 ééé'), 'the result keeps the file\'s start');
    assert.match(shown, new RegExp(`… \\[showing the first 20,000 of ${thousands(text.length)} characters; the original is ${thousands(bytes)} bytes, 4,001 lines\\]$`));
    assert.doesNotMatch(shown, /more characters\)/);
    await session.screenshot('1-read-big-file');
  });
});
