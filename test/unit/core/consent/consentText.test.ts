import * as assert from 'node:assert/strict';
import { CodedError, ErrorCode } from '../../../../src/protocol';
import { ChatApproval } from '../../../../src/protocol/webview';
import { consent, consentJson, consentLines, consentRows, CONSENT_SURFACES, consentValue, fitConsent, MAX_SHOWN_VALUE_CHARS, measureConsent } from '../../../../src/core/consent/consentText';

const tooLarge = (e: unknown) => e instanceof CodedError && e.code === ErrorCode.PromptTooLarge;

describe('consent text: built in one place, measured as shown', () => {
  it('keeps our literal lines and puts every value on one line, invisible characters spelled out', () => {
    const text = consent`Folder: ${'src\nEnvironment: NONE'}\nTime limit: ${5} s.`;
    assert.equal(text, 'Folder: src⏎Environment: NONE\nTime limit: 5 s.');
    assert.equal(consentValue('a\r\nb\u202Ec\u200Bd\u2028e\tf'), 'a⏎b<U+202E>c<U+200B>d<U+2028>e<U+0009>f');
    assert.equal(consentJson({ path: 'x\u2066y', n: 1 }), '{"path":"x<U+2066>y","n":1}');
  });

  it('leaves link and icon syntax as sent: the surfaces render plain text, so what runs reads as it runs', () => {
    assert.equal(consent`Run ${'echo $((6*7)) [x](command:y)'}`, 'Run echo $((6*7)) [x](command:y)');
  });

  it('is idempotent apart from line breaks: a consent text used as a value stays as shown, on one line', () => {
    const once = consentValue('a\u202Eb');
    assert.equal(consentValue(once), once);
    assert.equal(consent`${consentLines([consent`a`, consent`b`])}`, 'a⏎b');
  });

  it('joins lines, paragraphs and sentences, leaving absent parts out', () => {
    assert.equal(consentLines([consent`a`, undefined, consent`b`], '\n\n'), 'a\n\nb');
    assert.equal(consentLines([consent`a.`, consent`b.`], ' '), 'a. b.');
  });

  it('counts rows as shown: a line at least one, a long line one per row of columns, wide characters two columns', () => {
    assert.equal(consentRows('', 50), 1);
    assert.equal(consentRows('x'.repeat(50), 50), 1);
    assert.equal(consentRows('x'.repeat(51), 50), 2);
    assert.equal(consentRows('a\n\nb', 50), 3);
    assert.equal(consentRows('日'.repeat(25), 50), 1);
    assert.equal(consentRows('日'.repeat(26), 50), 2);
    assert.equal(consentRows('😀'.repeat(26), 50), 2, 'an emoji is one character, two columns');
    assert.equal(consentRows('é'.repeat(50), 50), 1);
  });

  it('measures after the expansion: 100 zero-width spaces are 800 columns, not 100', () => {
    const text = { message: consent`Delete a?`, detail: consentValue('\u200B'.repeat(100)) };
    assert.equal(measureConsent(text, 'modal').rows, 2 + 16);
  });

  it('fits a text whole, or refuses it with PROMPT_TOO_LARGE: never cuts', () => {
    const { maxRows, minTitleRows, detailColumns } = CONSENT_SURFACES.modal;
    const atLimit = { message: consent`Delete a?`, detail: consentValue('x'.repeat((maxRows - minTitleRows) * detailColumns)) };
    const fitted = fitConsent(atLimit, 'modal');
    assert.equal(fitted.detail, atLimit.detail);
    assert.equal(fitted.surface, 'modal');
    assert.throws(() => fitConsent({ ...atLimit, detail: consentValue(`${atLimit.detail}x`) }, 'modal'), tooLarge);
    // The chat's card scrolls its detail: the same text fits there.
    assert.equal(fitConsent({ ...atLimit, detail: consentValue(`${atLimit.detail}x`) }, 'chat').surface, 'chat');
    // Its first line does not scroll.
    assert.throws(() => fitConsent({ message: consentValue('y'.repeat(CONSENT_SURFACES.chat.titleColumns * CONSENT_SURFACES.chat.maxTitleRows + 1)), detail: consent`` }, 'chat'), tooLarge);
  });

  it('a text that fits the chat card also fits the chat\'s message schema, whatever its characters', () => {
    const { maxRows, maxTitleRows, titleColumns, detailColumns } = CONSENT_SURFACES.chat;
    for (const ch of ['x', '\u{1D400}', '日']) {
      const fill = (columns: number) => ch.repeat(Math.floor(columns / (ch === 'x' ? 1 : 2)));
      const fitted = fitConsent({ message: consentValue(fill(maxTitleRows * titleColumns)), detail: consentValue(fill((maxRows - maxTitleRows) * detailColumns)) }, 'chat');
      const parsed = ChatApproval.safeParse({ promptId: 'p', digest: '0'.repeat(64), requestId: 'r', toolName: 'T', groupName: 'G', message: fitted.message, detail: fitted.detail, choices: [] });
      assert.ok(parsed.success, `${JSON.stringify(ch)}: ${parsed.success ? '' : parsed.error.message}`);
    }
  });

  it('spells out at most what no surface can show, so a huge value is cheap and certain to be refused', () => {
    const value = consentValue('\u200B'.repeat(1_000_000));
    assert.equal(value.length, MAX_SHOWN_VALUE_CHARS * 8);
    for (const surface of ['modal', 'chat'] as const) {
      assert.throws(() => fitConsent({ message: consent`Run?`, detail: value }, surface), tooLarge);
      assert.throws(() => fitConsent({ message: consent`Run?`, detail: consentValue('x'.repeat(MAX_SHOWN_VALUE_CHARS + 5)) }, surface), tooLarge);
    }
  });
});
