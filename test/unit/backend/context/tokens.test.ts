import { strict as assert } from 'node:assert';
import { countTokens, messageTokens, requestTokens } from '../../../../src/backend/context/tokens';
import { contextWindowFor, DEFAULT_CONTEXT_WINDOW } from '../../../../src/backend/context/windows';

describe('context/tokens: counts with the o200k tokenizer', () => {
  it('counts tokens as the tokenizer does, not by characters', () => {
    assert.equal(countTokens(''), 0);
    assert.equal(countTokens('hello world'), 2);
    // A long run of one word is few tokens for many characters.
    const words = 'function '.repeat(1000);
    assert.ok(countTokens(words) <= 1001, `${countTokens(words)}`);
    assert.ok(countTokens(words) >= 900);
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
