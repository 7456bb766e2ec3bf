/**
 * Registration errors: a tool or group the backend cannot register is named in the `error`'s
 * `group` and `tool` fields, so code can act on it, and the rest of the `hello` is registered.
 * Names are unique per session and the first comer keeps one (PROTOCOL.md "Tool groups", "Names").
 */
import type { ErrorMessage, ToolGroupDefinition, ToolGroupState } from '../../protocol';
import { ErrorCode } from '../../protocol';
import { describeMessage } from '../backendPeer';
import type { Check } from '../check';
import { verify } from '../check';
import type { BackendContext } from './context';
import { FILES_GROUP, READ_TOOL } from './context';

const TAKEN_GROUP = 'ConformanceTaken';
const OTHER_TOOL = 'ConformanceOther';

/** A second group whose first tool has the name the kit's first group already uses. */
const TAKEN: ToolGroupDefinition = {
  name: TAKEN_GROUP,
  description: 'A group of the conformance kit that repeats a tool name.',
  tools: [
    { name: READ_TOOL, description: 'A second tool with a name already taken.', parameters: { type: 'object' } },
    { name: OTHER_TOOL, description: 'A tool of its own.', parameters: { type: 'object' } },
  ],
};

export const REGISTRATION_CHECKS: Check<BackendContext>[] = [
  {
    id: 'registration.error-ids',
    title: 'A tool that cannot be registered is named in the error (group and tool); the rest is registered',
    expected: `error ${ErrorCode.NameTaken} with group "${TAKEN_GROUP}" and tool "${READ_TOOL}" before the toolGroupState, which lists ${TAKEN_GROUP} with ${OTHER_TOOL} and without ${READ_TOOL}`,
    async run(context) {
      const { peer } = await context.session({ toolGroups: [FILES_GROUP, TAKEN] });
      const state = await context.wait(peer, (m): m is ToolGroupState => m.type === 'toolGroupState', 'toolGroupState');
      const errors = peer.messages().slice(0, peer.messages().indexOf(state)).filter((m): m is ErrorMessage => m.type === 'error');
      const named = errors.find((e) => e.group === TAKEN_GROUP && e.tool === READ_TOOL);
      verify(named, errors.length ? `the errors before toolGroupState: ${errors.map((e) => `${describeMessage(e)} (group ${e.group ?? 'absent'}, tool ${e.tool ?? 'absent'})`).join('; ')}` : 'no error came before toolGroupState');
      verify(named.code === ErrorCode.NameTaken, describeMessage(named));
      const tools = state.groups.find((g) => g.name === TAKEN_GROUP)?.tools.map((t) => t.name);
      verify(tools?.includes(OTHER_TOOL) && !tools.includes(READ_TOOL), `toolGroupState lists ${TAKEN_GROUP} with ${tools ? tools.join(', ') || 'no tools' : 'nothing: the group is missing'}`);
      return `${describeMessage(named)}: group ${named.group}, tool ${named.tool}; the group registered with ${(tools ?? []).join(', ')}`;
    },
  },
];
