import assert from 'node:assert/strict';
import { assertNever, assertNeverOr, isRunEvent, RUN_EVENT_TYPES, type ServerToClient } from '../../../src/protocol';
import { CLIENT_TO_SERVER_TYPES, Messages, SERVER_TO_CLIENT_TYPES, WireMessages } from '../../../src/protocol/schemas';
import { ChatRunEvent } from '../../../src/protocol/webview';
import { SERVER_FIXTURES } from './fixtures';

const typesOfUnion = (union: { options: readonly { shape: { type: { value: string } } }[] }): string[] => union.options.map((o) => o.shape.type.value);

describe('message registry: every list derives from the direction records in schemas.ts', () => {
  it('the type lists are the unions\' members, in order, for decoded and wire messages alike', () => {
    assert.deepEqual([...CLIENT_TO_SERVER_TYPES], typesOfUnion(Messages.ClientToServer));
    assert.deepEqual([...SERVER_TO_CLIENT_TYPES], typesOfUnion(Messages.ServerToClient));
    assert.deepEqual(typesOfUnion(WireMessages.ClientToServer), typesOfUnion(Messages.ClientToServer));
    assert.deepEqual(typesOfUnion(WireMessages.ServerToClient), typesOfUnion(Messages.ServerToClient));
    assert.deepEqual([...CLIENT_TO_SERVER_TYPES], ['hello', 'clientToolInvokeResponse', 'clientToolProgress', 'userMessage', 'cancel', 'resetThread', 'updateToolGroups', 'steer', 'withdrawSteer', 'compactThread', 'truncateThread']);
  });

  it('the run events are the twelve narrating messages, all backend → extension, and the chat view accepts exactly these', () => {
    assert.deepEqual([...RUN_EVENT_TYPES], ['runStarted', 'textDelta', 'toolCallStarted', 'toolCallUpdated', 'toolCallEnded', 'groupExpanded', 'runFinished', 'runError', 'contextCompacted', 'steerUpdated', 'contextUsage', 'modelRetry']);
    for (const type of RUN_EVENT_TYPES) assert.ok((SERVER_TO_CLIENT_TYPES as readonly string[]).includes(type), type);
    assert.deepEqual(typesOfUnion(Messages.RunEvent), [...RUN_EVENT_TYPES]);
    assert.deepEqual(typesOfUnion(ChatRunEvent).sort(), [...RUN_EVENT_TYPES].sort());
  });

  it('isRunEvent says yes to every run event and no to every other backend message', () => {
    for (const [type, message] of Object.entries(SERVER_FIXTURES)) {
      assert.equal(isRunEvent(message as ServerToClient), (RUN_EVENT_TYPES as readonly string[]).includes(type), type);
    }
  });

  it('assertNever names what slipped through; assertNeverOr hands back the fallback', () => {
    assert.throws(() => assertNever({ type: 'ping' } as never, 'message from the backend'), /^Error: Unhandled message from the backend of type "ping"$/);
    assert.throws(() => assertNever(42 as never), /^Error: Unhandled value$/);
    const fallback = { kept: true };
    assert.equal(assertNeverOr({ type: 'ping' } as never, fallback), fallback);
  });
});
