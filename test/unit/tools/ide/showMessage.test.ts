import * as assert from 'node:assert/strict';
import { ErrorCode } from '../../../../src/protocol';
import { sanitizeForNotification } from '../../../../src/core/uiText';
import { IDE_GROUP, IDE_TOOLS } from '../../../../src/tools/ide/group';
import { DispatchHarness } from '../../../support/dispatch-harness';
import { createTempWorkspace, type TempWorkspace } from '../../../support/fake-host';

describe('tool ShowMessage', () => {
  let ws: TempWorkspace;
  let h: DispatchHarness;
  beforeEach(async () => {
    ws = await createTempWorkspace();
    h = new DispatchHarness({ host: ws.host, group: IDE_GROUP, tools: IDE_TOOLS });
  });
  afterEach(async () => {
    h.dispose();
    await ws.dispose();
  });

  const chosen = (r: { content: unknown[] }) => (r.content[0] as { value: { chosen: string | null } }).value.chosen;

  it('shows the message with its severity and buttons and answers the button clicked', async () => {
    ws.host.messageAnswer = (_text, buttons) => buttons[1];
    const r = await h.call('ShowMessage', { message: 'Tests failed. Rerun?', severity: 'warning', buttons: ['Rerun', 'Ignore'] });
    assert.equal(chosen(r), 'Ignore');
    assert.deepEqual(ws.host.messages, [{ text: 'Tests failed. Rerun?', severity: 'warning', buttons: ['Rerun', 'Ignore'] }]);
  });

  it('answers chosen:null when a question is dismissed, and defaults to info', async () => {
    const r = await h.call('ShowMessage', { message: 'Go on?', buttons: ['Yes'] });
    assert.equal(chosen(r), null);
    assert.equal(ws.host.messages[0].severity, 'info');
  });

  it('without buttons answers {"shown": true} at once, while the notification is still open', async () => {
    // A toast nobody closes: the host's promise never settles (VS Code hides it after a while and the old tool waited for minutes).
    ws.host.showMessage = (text, severity, buttons) => {
      ws.host.messages.push({ text, severity, buttons: [...buttons] });
      return new Promise<string | undefined>(() => undefined);
    };
    const r = await h.call('ShowMessage', { message: 'hi', severity: 'warning' });
    assert.deepEqual([r.success, r.content], [true, [{ type: 'json', value: { shown: true } }]]);
    assert.deepEqual(ws.host.messages, [{ text: 'hi', severity: 'warning', buttons: [] }]);
  });

  it('a question (with buttons) passes its call to the host so the chat can answer it; information does not', async () => {
    const calls: (string | undefined)[] = [];
    ws.host.showMessage = async (_text, _severity, buttons, question) => {
      calls.push(question?.recordId);
      assert.equal(question?.signal.aborted ?? false, false);
      return buttons[0];
    };
    assert.equal(chosen(await h.call('ShowMessage', { message: 'Go on?', buttons: ['Yes', 'No'] })), 'Yes');
    await h.call('ShowMessage', { message: 'FYI' });
    assert.equal(calls.length, 2);
    assert.match(calls[0] ?? '', /.+/, 'the question carries its call\'s record id');
    assert.equal(calls[1], undefined, 'information is not a question');
  });

    it('neutralises command: links and markdown links so backend text cannot run a command', async () => {
    const attack = 'Click [here](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22rm%20-rf%20~%22%7D) or [docs](https://example.com/d) [[x](a)](command:y) COMMAND:evil';
    await h.call('ShowMessage', { message: attack, buttons: ['[ok](command:z)'] });
    const { text, buttons } = ws.host.messages[0];
    for (const s of [text, ...buttons]) {
      assert.ok(!/command:/i.test(s), `no command: URI survives: ${s}`);
      assert.ok(!/\]\(/.test(s), `no link syntax survives: ${s}`);
    }
    assert.match(text, /^Click here or docs \(https:\/\/example\.com\/d\)/);
  });

  it('maps the clicked (sanitised) label back to the label the model sent', async () => {
    ws.host.messageAnswer = (_t, buttons) => buttons[0];
    const r = await h.call('ShowMessage', { message: 'x', buttons: ['[Yes](command:a)', 'No'] });
    assert.equal(chosen(r), '[Yes](command:a)');
    assert.deepEqual(ws.host.messages[0].buttons, ['Yes', 'No']);
  });

  it('refuses more than 5 buttons, a bad severity and an empty message with INVALID_ARGUMENTS', async () => {
    const many = await h.call('ShowMessage', { message: 'x', buttons: ['1', '2', '3', '4', '5', '6'] });
    assert.deepEqual([many.errorCode, many.errorMessage], [ErrorCode.InvalidArguments, 'buttons: must NOT have more than 5 items']);
    assert.equal((await h.call('ShowMessage', { message: 'x', severity: 'fatal' })).errorCode, ErrorCode.InvalidArguments);
    assert.equal((await h.call('ShowMessage', { message: '   ' })).errorCode, ErrorCode.InvalidArguments);
    assert.equal(ws.host.messages.length, 0);
  });

  it('sanitizeForNotification shows control and bidi-override characters by code point (never hides them) and caps the length', () => {
    assert.equal(sanitizeForNotification('a\u202Eb\u0000c\nd'), 'a<U+202E>b<U+0000>c⏎d');
    assert.equal(sanitizeForNotification('x'.repeat(50), 10).length, 10);
  });
});
