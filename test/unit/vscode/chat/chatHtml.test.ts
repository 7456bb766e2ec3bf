import assert from 'node:assert/strict';
import { contentSecurityPolicy, chatHtml } from '../../../../src/vscode/chat/chatHtml';

describe('chat view HTML', () => {
  it('ships a strict CSP: nothing by default, scripts by nonce, styles and fonts from the webview origin', () => {
    assert.equal(
      contentSecurityPolicy('https://x.vscode-cdn.net', 'abcdefghijklmnopqrstuvwx'),
      "default-src 'none'; img-src https://x.vscode-cdn.net data:; style-src https://x.vscode-cdn.net; script-src 'nonce-abcdefghijklmnopqrstuvwx'; font-src https://x.vscode-cdn.net",
    );
    const html = chatHtml({ cspSource: 'https://x.vscode-cdn.net', nonce: 'abcdefghijklmnopqrstuvwx', scriptUri: 'https://x/chat.js', styleUri: 'https://x/chat.css' });
    assert.match(html, /<script nonce="abcdefghijklmnopqrstuvwx" src="https:\/\/x\/chat.js"><\/script>/);
    assert.equal((html.match(/<script/g) ?? []).length, 1);
    assert.ok(!html.includes('style='));
  });

  it('refuses a nonce that is short or could break out of the attribute', () => {
    assert.throws(() => chatHtml({ cspSource: 'x', nonce: 'short', scriptUri: 'a', styleUri: 'b' }));
    assert.throws(() => chatHtml({ cspSource: 'x', nonce: 'abcdefghijklmnop" onload="x', scriptUri: 'a', styleUri: 'b' }));
  });
});
