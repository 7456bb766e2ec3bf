import * as assert from 'node:assert/strict';
import { joinSafe, safe, sanitizeForNotification, uiText } from '../../../src/core/uiText';

/** What VS Code's notification renderer turns into a link: `[label](http…|command:…|file:…)`. */
const NOTIFICATION_LINK = /\[([^\]]+)\]\(((?:https?:\/\/|command:|file:)[^)\s]+)(?: (["'])(.+?)(\3))?\)/gi;
/** Any URI scheme VS Code hands to a command or an extension, with nothing between the name and the colon. */
const DANGEROUS_SCHEME = /(command|vscode(-[a-z]+)?|file):/i;

describe('uiText: the door for peer text into VS Code UI', () => {
  it('leaves ordinary text (paths, sentences, web addresses in prose) as it is', () => {
    for (const s of ['src/a.ts', 'The agent proposes changes to hello.txt.', 'see https://example.com/x', 'naïve café – 日本語 ✓ ✗']) {
      assert.equal(uiText(s), s);
    }
  });

  it('makes bidi overrides, zero-width, control and separator characters visible by code point, removing nothing', () => {
    assert.equal(uiText('invoice\u202Etxt.exe'), 'invoice<U+202E>txt.exe');
    assert.equal(uiText('a\u2066b\u2069c\u200Bd\uFEFFe\u00ADf'), 'a<U+2066>b<U+2069>c<U+200B>d<U+FEFF>e<U+00AD>f');
    assert.equal(uiText('a\u0000b\u0007c\u001Bd\u007Fe\u0085f'), 'a<U+0000>b<U+0007>c<U+001B>d<U+007F>e<U+0085>f');
    assert.equal(uiText('a\u2028b\u2029c\rd\te'), 'a<U+2028>b<U+2029>c<U+000D>d<U+0009>e');
    assert.equal(uiText('tag\u{E0041}s'), 'tag<U+E0041>s', 'invisible tag characters (ASCII smuggling)');
    assert.equal(uiText('lone \uD800 surrogate'), 'lone <U+D800> surrogate');
  });

  it('shows a newline as ⏎ on one line, and keeps newlines and tabs in multi-line text (a modal detail)', () => {
    assert.equal(uiText('evil.txt\n\nThis file is safe to delete'), 'evil.txt⏎⏎This file is safe to delete');
    assert.equal(uiText('line 1\r\n\tline 2\u202E', { multiline: true }), 'line 1\n\tline 2<U+202E>');
  });

  it('breaks every link form VS Code renders: [x](command:…), autolinks, bare command:, vscode: and file: schemes', () => {
    const attacks = [
      'a[x](command:workbench.action.terminal.new).txt',
      '[✓ Accept](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22rm%20-rf%20~%22%7D)',
      '[Open](file:///etc/passwd) [ext](vscode://publisher.ext/run) [ins](vscode-insiders://x/y)',
      '<command:workbench.action.terminal.new> and bare COMMAND:evil and Command : spaced',
      '[ref]: command:evil',
      '[x]\u200B(command:y)',
      '[x](\u202Ecommand:y)',
      '[web](https://example.com)',
    ];
    for (const attack of attacks) {
      const shown = uiText(attack);
      assert.equal([...shown.matchAll(NOTIFICATION_LINK)].length, 0, `a link survives in ${JSON.stringify(shown)}`);
      assert.ok(!DANGEROUS_SCHEME.test(shown), `a scheme survives in ${JSON.stringify(shown)}`);
      assert.ok(!/\][(:]/.test(shown), `link brackets touch in ${JSON.stringify(shown)}`);
    }
    // Nothing is dropped: the user still reads the label and the target.
    assert.equal(uiText('a[x](command:workbench.action.terminal.new).txt'), 'a[x]\u2009(command\u2009:workbench.action.terminal.new).txt');
  });

  it('leaves a label followed by a colon and a space as it is ("Command: npm test" names no link target)', () => {
    assert.equal(uiText('Command: npm test\nFile: a.txt', { multiline: true }), 'Command: npm test\nFile: a.txt');
    assert.notEqual(uiText('Command:workbench.action.terminal.new'), 'Command:workbench.action.terminal.new');
  });

  it('verbatim (modal dialogs, plain text): shows invisible characters but leaves link and icon syntax as sent', () => {
    assert.equal(uiText('echo $((6*7)) && cat a[i](x) file:///etc/hosts', { verbatim: true }), 'echo $((6*7)) && cat a[i](x) file:///etc/hosts');
    assert.equal(uiText('a\u202Eb\nc', { verbatim: true }), 'a<U+202E>b⏎c');
  });

  it('breaks $(icon) syntax, which quick picks and the status bar render as icons', () => {
    assert.equal(uiText('$(check) Accepted'), '$\u2009(check) Accepted');
  });

  it('is idempotent: sanitising safe text again changes nothing', () => {
    const samples = ['a[x](command:y).txt\u202E\n', '$(zap) [a]: file:x', 'x'.repeat(3000), `${'y'.repeat(9)}\u{1F600}`];
    for (const s of samples) {
      for (const options of [{}, { multiline: true }, { maxLength: 10 }]) {
        const once = uiText(s, options);
        assert.equal(uiText(once, options), once, JSON.stringify({ s: s.slice(0, 40), options }));
      }
    }
  });

  it('caps the length with … and never splits a surrogate pair', () => {
    assert.equal(uiText('x'.repeat(50), { maxLength: 10 }), `${'x'.repeat(9)}…`);
    assert.equal(uiText('x'.repeat(2500)).length, 2000);
    assert.equal(uiText(`${'y'.repeat(8)}\u{1F600}z`, { maxLength: 10 }), `${'y'.repeat(8)}…`);
  });

  it('safe`…` keeps literal text and accepts only SafeText or numbers inside', () => {
    assert.equal(safe`$(check) Client Tools: ${uiText('[m](command:x)')} (${3})`, '$(check) Client Tools: [m]\u2009(command\u2009:x) (3)');
    // @ts-expect-error a plain string is not SafeText: it must pass the sanitiser first
    assert.equal(typeof safe`${'raw'}`, 'string');
    assert.equal(joinSafe([safe`a`, uiText('b\nc')], '\n'), 'a\nb⏎c');
  });

  it('sanitizeForNotification (ShowMessage) turns links into their labels, then applies the door', () => {
    assert.equal(sanitizeForNotification('See [docs](https://example.com/d) or [run](command:x)\u202E'), 'See docs (https://example.com/d) or run<U+202E>');
    assert.equal(sanitizeForNotification('[[a](x)](command:y)'), 'a');
  });
});
