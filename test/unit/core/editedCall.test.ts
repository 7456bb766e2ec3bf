import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ErrorCode, type ClientToolInvokeResponse } from '../../../src/protocol';
import type { CallRecord } from '../../../src/core/callRecord';
import { EDIT_LABEL } from '../../../src/core/consent/permissionGate';
import { ShownPrompt } from '../../../src/core/consent/shownPrompt';
import type { PermissionPrompt } from '../../../src/core/consent/presenter';
import { IDE_GROUP, IDE_TOOLS } from '../../../src/tools/ide/group';
import { TERMINAL_GROUP, TERMINAL_TOOLS } from '../../../src/tools/terminal/group';
import { DispatchHarness } from '../../support/dispatch-harness';
import { createTempWorkspace, type TempWorkspace } from '../../support/fake-host';

function texts(r: ClientToolInvokeResponse): string[] {
  return r.content.flatMap((c) => (c.type === 'text' ? [c.text] : []));
}

function json(r: ClientToolInvokeResponse): Record<string, unknown> {
  const item = r.content.find((c) => c.type === 'json');
  assert.ok(item && item.type === 'json', JSON.stringify(r));
  return item.value as Record<string, unknown>;
}

describe('edit before allow', () => {
  let ws: TempWorkspace;
  let h: DispatchHarness;
  let records: CallRecord[];

  describe('RunInTerminal', () => {
    beforeEach(async () => {
      ws = await createTempWorkspace(['ws'], { 'file.txt': 'x' });
      ws.host.surface = 'chat';
      ws.host.catalog.commandHandler = async () => ({ exitCode: 0, output: 'ok\n', truncated: false, timedOut: false, via: 'process' });
      h = new DispatchHarness({ host: ws.host, group: TERMINAL_GROUP, tools: TERMINAL_TOOLS });
      records = [];
      h.dispatcher.onCallRecord((r) => records.push(r));
    });
    afterEach(async () => {
      h.dispose();
      await ws.dispose();
    });

    it('the chat prompt offers Edit with the proposed command; the edited command is asked about again, runs as edited, and the model and the card get both', async () => {
      ws.host.answerPromptsInTurn([{ answer: 'edit', edited: 'echo mine' }, 'allow']);
      const r = await h.call('RunInTerminal', { command: 'echo theirs' });

      assert.equal(ws.host.prompts.length, 2);
      const [first, second] = ws.host.prompts;
      assert.deepEqual(first.editable, { argument: 'command', value: 'echo theirs' });
      assert.ok(first.choices.some((c) => c.answer === 'edit' && c.label === EDIT_LABEL));
      assert.equal(second.message, 'Your edit: Run `echo mine` in the ws folder?');
      assert.match(second.detail, /You edited this call\. command as you wrote it: echo mine\n\nThe agent proposed: echo theirs\n\nCommand: echo mine/);
      assert.equal(second.editable, undefined, 'the edited call is not offered for editing again');
      assert.equal(second.offerAllowSession, false);

      assert.deepEqual(ws.host.catalog.commands.map((c) => c.command), ['echo mine']);
      assert.equal(r.success, true, r.errorMessage);
      assert.match(texts(r)[0], /edited this call before allowing it: command was "echo theirs" as you proposed it, and ran as "echo mine"/);
      assert.equal(json(r).command, 'echo mine');

      const last = records[records.length - 1];
      assert.equal(last.status, 'succeeded');
      assert.deepEqual(last.edited, { argument: 'command', proposed: 'echo theirs', ran: 'echo mine' });
      assert.equal(last.arguments.command, 'echo mine');
    });

    it('a Deny of the edited call runs nothing, and the model reads that the user edited and then declined', async () => {
      ws.host.answerPromptsInTurn([{ answer: 'edit', edited: 'echo mine' }, 'deny']);
      const r = await h.call('RunInTerminal', { command: 'echo theirs' });
      assert.equal(r.errorCode, ErrorCode.PermissionDenied);
      assert.equal(ws.host.catalog.commands.length, 0);
      assert.match(texts(r)[0], /ran as "echo mine"/);
      assert.match(r.errorMessage ?? '', /^The user edited command before allowing it/);
    });

    it('an edited command that fails the tool\'s own checks is refused with its code, naming the edit; nothing is asked again or run', async () => {
      ws.host.answerPromptsInTurn([{ answer: 'edit', edited: 'echo \u202Eevil' }, 'allow']);
      const r = await h.call('RunInTerminal', { command: 'echo theirs' });
      assert.equal(r.errorCode, ErrorCode.InvalidArguments);
      assert.match(r.errorMessage ?? '', /the user's edit of command \(“echo <U\+202E>evil”, invisible characters spelled out\) was refused: command: contains control or invisible characters/);
      assert.equal(ws.host.prompts.length, 1);
      assert.equal(ws.host.catalog.commands.length, 0);
    });

    it('an edited command that breaks the schema (too long) is refused with INVALID_ARGUMENTS before any prompt', async () => {
      ws.host.answerPromptsInTurn([{ answer: 'edit', edited: 'x'.repeat(10_001) }, 'allow']);
      const r = await h.call('RunInTerminal', { command: 'echo theirs' });
      assert.equal(r.errorCode, ErrorCode.InvalidArguments);
      assert.equal(ws.host.prompts.length, 1);
      assert.equal(ws.host.catalog.commands.length, 0);
    });

    it('the proposal sent back unchanged is a plain Allow: one prompt, no note', async () => {
      ws.host.answerPromptsInTurn([{ answer: 'edit', edited: 'echo theirs' }]);
      const r = await h.call('RunInTerminal', { command: 'echo theirs' });
      assert.equal(ws.host.prompts.length, 1);
      assert.deepEqual(ws.host.catalog.commands.map((c) => c.command), ['echo theirs']);
      assert.deepEqual(texts(r), []);
    });

    it('the modal dialog offers no Edit (it has no field), and an edit answer to it allows nothing', async () => {
      ws.host.surface = 'modal';
      ws.host.answerPromptsInTurn([{ answer: 'edit', edited: 'echo mine' }]);
      const r = await h.call('RunInTerminal', { command: 'echo theirs' });
      assert.equal(ws.host.prompts[0].editable, undefined);
      assert.ok(!ws.host.prompts[0].choices.some((c) => c.answer === 'edit'));
      assert.equal(r.errorCode, ErrorCode.PermissionDenied);
      assert.equal(ws.host.catalog.commands.length, 0);
    });
  });

  describe('DeleteFile (a single-target tool)', () => {
    beforeEach(async () => {
      ws = await createTempWorkspace(['ws'], { 'a.txt': 'a', 'b.txt': 'b', '.env': 'SECRET=1' });
      ws.host.surface = 'chat';
      h = new DispatchHarness({ host: ws.host, group: IDE_GROUP, tools: IDE_TOOLS });
    });
    afterEach(async () => {
      h.dispose();
      await ws.dispose();
    });

    it('an edited path is resolved and checked again: the other file is deleted, the proposed one stays', async () => {
      ws.host.answerPromptsInTurn([{ answer: 'edit', edited: 'b.txt' }, 'allow']);
      const r = await h.call('DeleteFile', { path: 'a.txt' });
      assert.equal(r.success, true, r.errorMessage);
      assert.match(ws.host.prompts[1].message, /^Your edit: Delete b\.txt \(1 B\)\?$/);
      assert.ok(existsSync(path.join(ws.folders[0].path, 'a.txt')));
      assert.ok(!existsSync(path.join(ws.folders[0].path, 'b.txt')));
      assert.equal(json(r).deleted, 'b.txt');
    });

    it('an edited path to a protected file gets the protected file\'s prompt; a path outside the workspace is refused before any second prompt', async () => {
      ws.host.answerPromptsInTurn([{ answer: 'edit', edited: '.env' }, 'deny']);
      await h.call('DeleteFile', { path: 'a.txt' });
      assert.match(ws.host.prompts[1].detail, /holds secrets or configuration/);
      assert.ok(existsSync(path.join(ws.folders[0].path, '.env')));

      ws.host.prompts.length = 0;
      ws.host.answerPromptsInTurn([{ answer: 'edit', edited: '../outside.txt' }, 'allow']);
      const r = await h.call('DeleteFile', { path: 'a.txt' });
      assert.equal(r.success, false);
      assert.match(r.errorMessage ?? '', /the user's edit of path \(“\.\.\/outside\.txt”, invisible characters spelled out\) was refused/);
      assert.equal(ws.host.prompts.length, 1);
      assert.ok(existsSync(path.join(ws.folders[0].path, 'a.txt')));
    });
  });

  describe('the chat\'s answer', () => {
    const prompt = { promptId: 'p1', digest: 'd'.repeat(64), requestId: 'r', toolName: 'RunInTerminal', groupName: 'Terminal', message: 'Run?', detail: '', surface: 'chat', offerAllowSession: false, choices: [{ answer: 'edit', label: EDIT_LABEL }], editable: { argument: 'command', value: 'x' } } as unknown as PermissionPrompt;

    it('an edit is taken only with its value, and a value only with an edit', () => {
      const open = new ShownPrompt();
      void open.show(prompt, new AbortController().signal);
      assert.equal(open.answer('p1', prompt.digest, 'edit'), 'not-offered');
      assert.equal(open.answer('p1', prompt.digest, 'allow', undefined, 'rm -rf /'), 'not-offered');
      assert.equal(open.answer('p1', prompt.digest, 'edit', undefined, 'echo mine'), 'accepted');
    });

    it('an edit to a prompt that offered none is refused', () => {
      const open = new ShownPrompt();
      void open.show({ ...prompt, choices: [], editable: undefined } as PermissionPrompt, new AbortController().signal);
      assert.equal(open.answer('p1', prompt.digest, 'edit', undefined, 'echo mine'), 'not-offered');
    });
  });
});
