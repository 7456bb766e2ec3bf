/**
 * cardSentence (src/webview/cardSentence.ts): the one line a tool card leads with.
 */
import * as assert from 'node:assert/strict';
import { cardSentence } from '../../../src/webview/cardSentence';

const card = (toolName: string, status: 'pending' | 'running' | 'succeeded' | 'failed' | 'denied' | 'awaiting-permission', args: Record<string, unknown>, target?: string) =>
  cardSentence({ toolName, status, argsJson: JSON.stringify(args, null, 2), ...(target !== undefined ? { target } : {}) });

describe('cardSentence: a card leads with the action and its target', () => {
  it('names the action and the target, in the tense of the status', () => {
    assert.deepEqual(card('ReadFile', 'succeeded', { path: 'notes.md' }), { text: 'Read notes.md', namesTarget: true });
    assert.equal(card('ReadFile', 'running', { path: 'notes.md' }).text, 'Reading notes.md');
    assert.equal(card('DeleteFile', 'awaiting-permission', { path: 'hello.txt' }).text, 'Delete hello.txt');
    assert.equal(card('DeleteFile', 'denied', { path: 'hello.txt' }).text, 'Delete hello.txt');
    assert.equal(card('RunInTerminal', 'succeeded', { command: 'ls -la' }).text, 'Ran `ls -la`');
    assert.equal(card('FindFiles', 'succeeded', { pattern: '**/*.ts' }).text, 'Found files matching **/*.ts');
    assert.equal(card('ShowMessage', 'succeeded', { message: 'hi' }).text, 'Showed "hi"');
    assert.deepEqual(card('GetSelection', 'succeeded', {}), { text: 'Read the selection', namesTarget: true });
  });

  it('a tool without a sentence leads with its name (the arguments stay on the second line)', () => {
    assert.deepEqual(card('mcp_weather_lookup', 'succeeded', { city: 'Oslo' }), { text: 'mcp_weather_lookup', namesTarget: false });
  });

  it('clipped arguments (not JSON any more) fall back to the record\'s target', () => {
    assert.deepEqual(cardSentence({ toolName: 'OpenFile', status: 'succeeded', argsJson: '{"path": "a… [showing', target: 'src/a.ts' }), { text: 'Opened src/a.ts', namesTarget: true });
    assert.deepEqual(cardSentence({ toolName: 'OpenFile', status: 'succeeded', argsJson: '{' }), { text: 'Opened', namesTarget: false });
  });

  it('a hostile target stays one line: line breaks shown as ⏎, bidi and invisible characters dropped, long ones cut', () => {
    assert.equal(card('RunInTerminal', 'awaiting-permission', { command: 'cd pkg\nnpm test' }).text, 'Run `cd pkg ⏎ npm test`');
    assert.equal(card('ReadFile', 'succeeded', { path: 'a\u202Etxt.exe\u200B' }).text, 'Read atxt.exe');
    const long = card('ReadFile', 'succeeded', { path: 'x'.repeat(10_000) }).text;
    assert.equal(long.length, 'Read '.length + 201);
  });
});
