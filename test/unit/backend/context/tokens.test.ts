import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { countTokens as o200k } from 'gpt-tokenizer/encoding/o200k_base';
import { countTokens, EXACT_CHARS, messageTokens, requestTokens } from '../../../../src/backend/context/tokens';
import { contextWindowFor, DEFAULT_CONTEXT_WINDOW } from '../../../../src/backend/context/windows';

/** The tokenizer's own count of the whole text, reserved text (`<|endoftext|>`) counted as text. */
function exactO200k(text: string): number {
  return o200k(text, { disallowedSpecial: new Set() });
}

describe('context/tokens: counts with the o200k tokenizer', () => {
  it('counts tokens as the tokenizer does, not by characters', () => {
    assert.equal(countTokens(''), 0);
    assert.equal(countTokens('hello world'), 2);
    // A long run of one word is few tokens for many characters.
    const words = 'function '.repeat(900);
    assert.ok(countTokens(words) <= 901, `${countTokens(words)}`);
    assert.ok(countTokens(words) >= 800);
  });

  it('counts a text of up to EXACT_CHARS exactly as the tokenizer does when it holds spaces to cut at', () => {
    const source = fs.readFileSync(path.join(__dirname, '../../../../src/backend/agent.ts'), 'utf8').slice(0, EXACT_CHARS);
    assert.equal(countTokens(source), exactO200k(source));
  });

  it('estimates a longer text from samples, a little above the exact count (never far below it)', () => {
    const root = path.join(__dirname, '../../../..');
    for (const file of ['src/backend/agent.ts', 'docs/BACKEND.md', 'package-lock.json']) {
      const text = fs.readFileSync(path.join(root, file), 'utf8');
      const ratio = countTokens(text) / exactO200k(text);
      assert.ok(ratio >= 0.97 && ratio <= 1.25, `${file}: estimate / exact = ${ratio.toFixed(3)}`);
    }
  });

  it('counts text the tokenizer reserves ("<|endoftext|>") as text instead of throwing', () => {
    assert.ok(countTokens('a <|endoftext|> b <|im_start|>') > 5);
  });

  it('counts a long run of one character in pieces: exact but for one token per cut, and fast', () => {
    const run = 'a'.repeat(EXACT_CHARS);
    const t0 = performance.now();
    const n = countTokens(run);
    assert.ok(performance.now() - t0 < 500, 'one run of 8,192 characters took over 500 ms');
    assert.ok(n >= EXACT_CHARS / 8 && n <= EXACT_CHARS / 8 + 40, `${n}`);
  });

  it('counts a message as its wire JSON plus a per-message overhead, tool calls and results included', () => {
    const user = messageTokens({ role: 'user', content: 'hello world' });
    assert.ok(user > countTokens('hello world'));
    const call = messageTokens({ role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'ReadFile', arguments: '{"path":"src/a.ts"}' }] });
    assert.ok(call > countTokens('{"path":"src/a.ts"}'));
    const result = messageTokens({ role: 'tool', toolCallId: 'c1', toolName: 'ReadFile', content: [{ type: 'text', text: 'x '.repeat(500) }] });
    assert.ok(result >= 500);
  });

  it('counts a request as its messages plus its function definitions', () => {
    const messages = [{ role: 'user' as const, content: 'hi' }];
    const bare = requestTokens({ messages, tools: [] });
    const withTool = requestTokens({ messages, tools: [{ name: 'ReadFile', description: 'Reads a file of the workspace.', parameters: { type: 'object', properties: { path: { type: 'string' } } } }] });
    assert.ok(withTool - bare >= 15, `${withTool - bare}`);
  });
});

describe('context/windows: per-model context windows', () => {
  it('knows the families and gives an unknown model a small window', () => {
    assert.equal(contextWindowFor('gpt-4o-mini'), 128_000);
    assert.equal(contextWindowFor('gpt-4.1-mini'), 1_000_000);
    assert.equal(contextWindowFor('gpt-5'), 400_000);
    assert.equal(contextWindowFor('o3-mini'), 200_000);
    assert.equal(contextWindowFor('llama3.1:8b'), 128_000);
    assert.equal(contextWindowFor('qwen2.5-coder:7b'), 32_768);
    assert.equal(contextWindowFor('mistral-small-latest'), 128_000);
    assert.equal(contextWindowFor('my-own-model'), DEFAULT_CONTEXT_WINDOW);
    assert.ok(DEFAULT_CONTEXT_WINDOW <= 8_192);
  });
});
