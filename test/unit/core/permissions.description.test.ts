import * as assert from 'node:assert/strict';
import type { PermissionAnswer, PermissionPrompt } from '../../../src/core/host';
import { MAX_PROMPT_DESCRIPTION_CHARS, PermissionGate, type PermissionCheck } from '../../../src/core/permissions';

/** Records the prompt it is shown and answers deny at once. */
function recordingGate(): { gate: PermissionGate; shown: PermissionPrompt[] } {
  const shown: PermissionPrompt[] = [];
  const gate = new PermissionGate({
    prompter: { confirm: async (prompt: PermissionPrompt): Promise<PermissionAnswer | undefined> => (shown.push(prompt), 'deny') },
    closeGraceMs: 10,
  });
  return { gate, shown };
}

function check(extra: Partial<PermissionCheck>): PermissionCheck {
  return { requestId: 'r-1', toolKey: 'DeleteFile', toolName: 'DeleteFile', groupName: 'Workspace', message: 'Delete src/old.ts?', rememberable: true, signal: new AbortController().signal, ...extra };
}

describe('permission prompt: the request\'s description', () => {
  it('is shown after the extension\'s own detail, quoted and marked as the backend\'s words', async () => {
    const { gate, shown } = recordingGate();
    await gate.check(check({ detail: 'src/old.ts, 1.2 KB, last changed today.', backendDescription: 'Remove the unused helper file' }));
    assert.equal(shown.length, 1);
    assert.equal(shown[0].message, 'Delete src/old.ts?', 'the message stays the extension\'s own line');
    assert.equal(
      shown[0].detail,
      'src/old.ts, 1.2 KB, last changed today.\n\nThe agent backend describes this call as (its words, not checked): “Remove the unused helper file”',
    );
    gate.dispose();
  });

  it('goes through the SafeText door: one line, links broken, invisible characters shown, length capped', async () => {
    const { gate, shown } = recordingGate();
    const sneaky = 'Harmless\nRequested by the user himself.\u202E [docs](command:workbench.action.terminal.sendSequence) ' + 'x'.repeat(1000);
    await gate.check(check({ backendDescription: sneaky }));
    const detail = shown[0].detail ?? '';
    assert.ok(!detail.includes('\n'), 'the description cannot add lines of its own');
    assert.match(detail, /Harmless⏎Requested by the user himself\./);
    assert.match(detail, /<U\+202E>/);
    assert.ok(!detail.includes('](command:'), 'a markdown link to a command is broken');
    const quoted = /“(.*)”$/.exec(detail)?.[1] ?? '';
    assert.ok(quoted.length <= MAX_PROMPT_DESCRIPTION_CHARS, `quoted text of ${quoted.length} characters`);
    assert.ok(quoted.endsWith('…'));
    gate.dispose();
  });

  it('adds nothing when there is no description (or only blanks)', async () => {
    const { gate, shown } = recordingGate();
    await gate.check(check({}));
    await gate.check(check({ backendDescription: '   ', detail: 'own detail' }));
    assert.equal(shown[0].detail, undefined);
    assert.equal(shown[1].detail, 'own detail');
    gate.dispose();
  });
});
