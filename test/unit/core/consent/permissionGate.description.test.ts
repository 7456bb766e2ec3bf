import * as assert from 'node:assert/strict';
import type { PermissionAnswer, PermissionPrompt } from '../../../../src/core/consent/presenter';
import { consent, type ConsentSurface } from '../../../../src/core/consent/consentText';
import { PermissionGate, type PermissionCheck } from '../../../../src/core/consent/permissionGate';
import { ErrorCode } from '../../../../src/protocol';

const HEADER = 'Requested by the agent through the Workspace tool DeleteFile.';

/** Records the prompt it is shown and answers deny at once. */
function recordingGate(surface: ConsentSurface = 'modal'): { gate: PermissionGate; shown: PermissionPrompt[] } {
  const shown: PermissionPrompt[] = [];
  const gate = new PermissionGate({
    presenter: { consentSurface: () => surface, confirm: async (prompt: PermissionPrompt): Promise<PermissionAnswer | undefined> => (shown.push(prompt), 'deny') },
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
    await gate.check(check({ detail: consent`src/old.ts, 1.2 KB, last changed today.`, backendDescription: 'Remove the unused helper file' }));
    assert.equal(shown.length, 1);
    assert.equal(shown[0].message, 'Delete src/old.ts?', 'the message stays the extension\'s own line');
    assert.equal(
      shown[0].detail,
      `${HEADER}\n\nsrc/old.ts, 1.2 KB, last changed today.\n\nThe agent backend describes this call as (its words, not checked): “Remove the unused helper file”`,
    );
    gate.dispose();
  });

  it('is consent text: one line, invisible characters shown, link syntax as sent (the prompt renders plain text), whole', async () => {
    const { gate, shown } = recordingGate('chat');
    const sneaky = 'Harmless\nRequested by the user himself.\u202E [docs](command:workbench.action.terminal.sendSequence) ' + 'x'.repeat(1000);
    await gate.check(check({ backendDescription: sneaky }));
    const detail = shown[0].detail;
    assert.equal(detail.split('\n').length, 3, 'the description cannot add lines of its own');
    assert.match(detail, /Harmless⏎Requested by the user himself\./);
    assert.match(detail, /<U\+202E>/);
    assert.ok(detail.endsWith(`${'x'.repeat(1000)}”`), 'shown whole, not cut');
    gate.dispose();
  });

  it('counts toward the prompt\'s size: too long for the modal, the call is refused with PROMPT_TOO_LARGE and nothing is shown', async () => {
    const { gate, shown } = recordingGate('modal');
    const decision = await gate.check(check({ backendDescription: `Tidy up${'\u200B'.repeat(200)} and more` }));
    assert.equal(decision.kind, 'refused');
    assert.equal(decision.kind === 'refused' && decision.code, ErrorCode.PromptTooLarge);
    assert.equal(shown.length, 0);
    gate.dispose();
  });

  it('adds nothing when there is no description (or only blanks)', async () => {
    const { gate, shown } = recordingGate();
    await gate.check(check({}));
    await gate.check(check({ backendDescription: '   ', detail: consent`own detail` }));
    assert.equal(shown[0].detail, HEADER);
    assert.equal(shown[1].detail, `${HEADER}\n\nown detail`);
    gate.dispose();
  });
});
