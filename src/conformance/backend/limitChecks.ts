/**
 * Limits: a message over the announced size, and tool registrations past the session caps. The
 * caps are the reference backend's (PROTOCOL.md), so those checks are advisory for other backends.
 */
import type { ToolGroupDefinition, ToolGroupState } from '../../protocol';
import { ErrorCode } from '../../protocol';
import { describeMessage } from '../backendPeer';
import type { Check } from '../check';
import { CheckFailed, skip, verify } from '../check';
import type { BackendContext } from './context';
import { nextError } from './context';

/** A message larger than this is not sent: building and writing it would take too long. */
const LARGEST_PROBE = 64 * 1024 * 1024;
const REFERENCE_MAX_TOOLS = 1024;
const REFERENCE_MAX_GROUPS = 128;

function groups(count: number, toolsEach: number, prefix: string): ToolGroupDefinition[] {
  return Array.from({ length: count }, (_g, g) => ({
    name: `${prefix}${g}`,
    description: 'A group of the conformance kit.',
    tools: Array.from({ length: toolsEach }, (_t, t) => ({ name: `${prefix}${g}_tool${t}`, description: 'A tool of the conformance kit.', parameters: { type: 'object' } })),
  }));
}

function toolCount(state: ToolGroupState): number {
  return state.groups.reduce((n, g) => n + g.tools.length, 0);
}

export const LIMIT_CHECKS: Check<BackendContext>[] = [
  {
    id: 'limits.message-too-large',
    title: 'A message over welcome.limits.maxMessageBytes is refused',
    expected: `error ${ErrorCode.MessageTooLarge}, or the connection closed with 1009`,
    async run(context) {
      const { peer, welcome } = await context.session();
      const limit = welcome.limits.maxMessageBytes;
      if (limit >= LARGEST_PROBE) skip(`the backend announces ${limit} bytes; the kit sends at most ${LARGEST_PROBE}`);
      const since = peer.mark();
      const padding = 'x'.repeat(limit + 1 - JSON.stringify({ type: 'cancel', threadId: '' }).length);
      peer.sendRaw(JSON.stringify({ type: 'cancel', threadId: padding }), false);
      // The backend may refuse the message from its header while the kit is still writing it, close
      // with 1009 and end TCP at once: the close frame is the answer, however the TCP close goes.
      const outcome = await peer.nextOf((m) => m.type === 'error', context.target.waitMs, since);
      if ('timedOut' in outcome) throw new CheckFailed(`neither an error nor a close within ${context.target.waitMs} ms`);
      if ('closed' in outcome) {
        verify(outcome.closed.code === 1009, `the connection closed with ${outcome.closed.code}${outcome.closed.code === 1006 ? ' (no close frame)' : ''}`);
        return 'closed with 1009';
      }
      const error = outcome.message;
      verify(error.type === 'error' && error.code === ErrorCode.MessageTooLarge, describeMessage(error));
      return describeMessage(error);
    },
  },
  {
    id: 'limits.tools',
    title: `A hello with more tools than the session cap (${REFERENCE_MAX_TOOLS}) registers what fits and says LIMIT_EXCEEDED`,
    expected: `welcome, error ${ErrorCode.LimitExceeded}, and a toolGroupState with at most ${REFERENCE_MAX_TOOLS} tools`,
    advisory: true,
    async run(context) {
      const { peer } = await context.session({ toolGroups: groups(3, 400, 'ConformanceMany') });
      const error = await nextError(context, peer, 0);
      verify(error.code === ErrorCode.LimitExceeded, describeMessage(error));
      const state = await context.wait(peer, (m): m is ToolGroupState => m.type === 'toolGroupState', 'toolGroupState');
      verify(toolCount(state) <= REFERENCE_MAX_TOOLS && toolCount(state) > 0, `toolGroupState lists ${toolCount(state)} tools`);
      return `${describeMessage(error)}; ${toolCount(state)} tools registered`;
    },
  },
  {
    id: 'limits.groups',
    title: `Injecting a group past the session cap (${REFERENCE_MAX_GROUPS} groups) is refused with LIMIT_EXCEEDED`,
    expected: `error ${ErrorCode.LimitExceeded} for the updateToolGroups, and the connection stays open`,
    advisory: true,
    async run(context) {
      const { peer } = await context.session({ toolGroups: groups(REFERENCE_MAX_GROUPS, 1, 'ConformanceGroup') });
      await context.wait(peer, (m) => m.type === 'toolGroupState', 'toolGroupState');
      const since = peer.mark();
      peer.send({ type: 'updateToolGroups', augmentation: { injectGroups: groups(1, 1, 'ConformanceExtra') } });
      const error = await nextError(context, peer, since);
      verify(error.code === ErrorCode.LimitExceeded, describeMessage(error));
      verify(await peer.alive(context.target.waitMs), 'the connection was closed or stopped answering pings');
      return describeMessage(error);
    },
  },
];
