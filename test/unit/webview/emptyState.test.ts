import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { EXAMPLES, parseIntent } from '../../../src/backend/demo/demoIntents';
import { EXAMPLE_PROMPTS } from '../../../src/webview/examplePrompts';
import { renderMarkdown } from '../../../src/webview/markdown';

/** npm start copies this folder as its sample workspace (scripts/start.mjs). */
const SAMPLE_WORKSPACE = path.resolve(__dirname, '../../fixtures/workspace');

describe('chat empty state examples', () => {
  it('every example is a request the offline demo model understands', () => {
    for (const prompt of EXAMPLE_PROMPTS) assert.notEqual(parseIntent(prompt).kind, 'unknown', prompt);
  });

  it("every example of the demo model's help answer, read as the chat shows it (markdown), is a request it understands", () => {
    for (const example of EXAMPLES) {
      const shown = renderMarkdown(`- "${example}"`).replace(/<[^>]*>/g, '').replace(/&quot;/g, '"').replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>').trim();
      const read = /^"(.*)"$/.exec(shown)?.[1] ?? shown;
      assert.notEqual(parseIntent(read).kind, 'unknown', `the help shows "${read}" for "${example}", and that is not understood`);
    }
  });

  for (const [list, prompts] of [['the empty state', EXAMPLE_PROMPTS], ["the demo model's help answer", EXAMPLES]] as const) {
    it(`every file an example of ${list} names exists in the sample workspace (no "open README.md" that ends in NOT_FOUND)`, () => {
      let named = 0;
      for (const prompt of prompts) {
        const intent = parseIntent(prompt);
        if (!('path' in intent) || intent.path === undefined) continue;
        named++;
        assert.ok(fs.existsSync(path.join(SAMPLE_WORKSPACE, intent.path)), `${prompt}: ${intent.path} is not in the sample workspace`);
      }
      assert.ok(named >= 3, `only ${named} examples name a file`);
    });
  }
});
