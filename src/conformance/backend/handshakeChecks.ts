/** The handshake: hello, welcome and the first toolGroupState; what comes before hello; another version. */
import type { ToolGroupState, Welcome } from '../../protocol';
import { ErrorCode, PROTOCOL, TOOL_NAME_PATTERN, toFunctionName } from '../../protocol';
import { describeMessage } from '../backendPeer';
import type { Check } from '../check';
import { verify } from '../check';
import type { BackendContext } from './context';
import { FILES_GROUP, FILES_GROUP_NAME, helloMessage, nextError, READ_TOOL, uniqueId } from './context';

export const HANDSHAKE_CHECKS: Check<BackendContext>[] = [
  {
    id: 'handshake.welcome',
    title: 'hello is answered with welcome, then toolGroupState',
    expected: `welcome (protocol ${PROTOCOL}, a sessionId, resumed false, limits), then toolGroupState listing the kit's group collapsed with a valid containerName`,
    async run(context) {
      const peer = await context.connect();
      peer.send(helloMessage());
      const welcome = await context.wait(peer, (m): m is Welcome => m.type === 'welcome', 'welcome');
      verify(welcome.protocol === PROTOCOL, `welcome.protocol is "${welcome.protocol}"`);
      verify(!welcome.resumed, 'welcome.resumed is true for a new session');
      const first = peer.messages()[0];
      verify(first === welcome, `the first message was ${first ? describeMessage(first) : 'none'}, not welcome`);
      const state = await context.wait(peer, (m): m is ToolGroupState => m.type === 'toolGroupState', 'toolGroupState after welcome');
      const group = state.groups.find((g) => g.name === FILES_GROUP_NAME);
      verify(group, `toolGroupState lists ${state.groups.map((g) => g.name).join(', ') || 'no groups'}, not ${FILES_GROUP_NAME}`);
      verify(!state.collapsing || !group.expanded, `${FILES_GROUP_NAME} is expanded although it starts collapsed`);
      verify(TOOL_NAME_PATTERN.test(group.containerName), `containerName "${group.containerName}" is not a valid function name`);
      return `welcome (session ${welcome.sessionId.length} characters, limits ${JSON.stringify(welcome.limits)}), toolGroupState with container ${group.containerName}`;
    },
  },
  {
    id: 'handshake.name-taken',
    title: 'Container names follow the function-name rule; a group whose container name is taken is refused with NAME_TAKEN, never renamed',
    expected: `error ${ErrorCode.NameTaken} for a group named like the kit's tool, and the group "Conformance Spaced" with the container ${toFunctionName('Conformance Spaced')}`,
    async run(context) {
      const peer = await context.connect();
      const clashing = { name: READ_TOOL, description: 'A group named like a tool.', tools: [{ name: 'ConformanceOther', description: 'x', parameters: { type: 'object' } }] };
      const spaced = { name: 'Conformance Spaced', description: 'A group whose name is not a function name.', tools: [{ name: 'ConformanceSpacedTool', description: 'x', parameters: { type: 'object' } }] };
      peer.send(helloMessage({ toolGroups: [FILES_GROUP, clashing, spaced] }));
      await context.wait(peer, (m): m is Welcome => m.type === 'welcome', 'welcome');
      const state = await context.wait(peer, (m): m is ToolGroupState => m.type === 'toolGroupState', 'toolGroupState after welcome');
      const errors = peer.messages().filter((m) => m.type === 'error');
      verify(errors.some((e) => e.type === 'error' && e.code === ErrorCode.NameTaken), `errors: ${errors.map(describeMessage).join('; ') || 'none'}`);
      verify(!state.groups.some((g) => g.name === READ_TOOL), `the group ${READ_TOOL} was registered (container ${state.groups.find((g) => g.name === READ_TOOL)?.containerName ?? ''})`);
      const group = state.groups.find((g) => g.name === spaced.name);
      verify(group?.containerName === toFunctionName(spaced.name), `"${spaced.name}" has the container ${group ? group.containerName : '(none: not registered)'}`);
      return `error ${ErrorCode.NameTaken}, container ${group.containerName}`;
    },
  },
  {
    id: 'handshake.not-ready',
    title: 'A message before hello is refused with NOT_READY',
    expected: `error ${ErrorCode.NotReady}, and hello still works afterwards`,
    async run(context) {
      const peer = await context.connect();
      peer.send({ type: 'userMessage', threadId: uniqueId('thread'), text: 'hello?' });
      const error = await nextError(context, peer, 0);
      verify(error.code === ErrorCode.NotReady, describeMessage(error));
      const since = peer.mark();
      peer.send(helloMessage());
      await context.wait(peer, (m) => m.type === 'welcome', 'welcome after the refused message', since);
      return `error ${error.code}, then welcome`;
    },
  },
  {
    id: 'handshake.decode-before-hello',
    title: 'A message that cannot be decoded before hello gets its decoding code, not NOT_READY',
    expected: `error ${ErrorCode.ParseError} for malformed JSON before hello, the connection open, and hello still works afterwards`,
    async run(context) {
      const peer = await context.connect();
      peer.sendRaw('{"type": "userMessage",', false);
      const error = await nextError(context, peer, 0);
      verify(error.code === ErrorCode.ParseError, describeMessage(error));
      const since = peer.mark();
      peer.send(helloMessage());
      await context.wait(peer, (m) => m.type === 'welcome', 'welcome after the undecodable message', since);
      return `error ${error.code}, then welcome`;
    },
  },
  {
    id: 'handshake.protocol-mismatch',
    title: 'A hello of another major version is refused with PROTOCOL_MISMATCH and close code 1002',
    expected: `error ${ErrorCode.ProtocolMismatch}, then the connection closed with 1002`,
    async run(context) {
      const peer = await context.connect();
      peer.sendRaw(JSON.stringify({ ...helloMessage(), protocol: 'client-tools/99' }), false);
      const error = await nextError(context, peer, 0);
      verify(error.code === ErrorCode.ProtocolMismatch, describeMessage(error));
      const closed = await peer.closeCode(context.target.waitMs);
      verify(closed?.code === 1002, closed ? `closed with ${closed.code}` : 'the connection stayed open');
      return `error ${error.code}, closed with 1002`;
    },
  },
];
