/**
 * An agent's edit as opencode asks for it (a permission request of kind edit with one diff from the
 * file's text to the proposal, its own options), on a harness whose launch has the opencode preset's
 * `reviewEditPermissions`: shared by the unit and adversarial tests of src/agents/editReview.ts.
 */
import { PLAIN_LAUNCH, type AgentLaunch } from '../../../src/agents/presetLaunch';
import { startAcpHarness, type AcpHarness } from './acp-harness';
import type { ScriptStep } from './scripted-agent';

/** opencode's options, as it sends them. */
export const OPENCODE_OPTIONS = [
  { optionId: 'once', kind: 'allow_once', name: 'Allow once' },
  { optionId: 'always', kind: 'allow_always', name: 'Always allow' },
  { optionId: 'reject', kind: 'reject_once', name: 'Reject' },
];

/** The edit's permission request, answered into the log as `perm`. */
export function editPermission(path: string, oldText: string | null, newText: string): ScriptStep {
  return {
    call: 'session/request_permission',
    params: {
      toolCall: { toolCallId: 'edit-1', title: path.replace('__CWD__/', ''), kind: 'edit', status: 'pending', rawInput: { filepath: path }, content: [{ type: 'diff', path, oldText, newText }], locations: [{ path }] },
      options: OPENCODE_OPTIONS,
    },
    as: 'perm',
  };
}

/** Codex's patch request: one diff per hunk, each the hunk's old and new lines only, and its two options. */
export function patchPermission(path: string, hunks: readonly { oldText: string; newText: string }[]): ScriptStep {
  return {
    call: 'session/request_permission',
    params: {
      toolCall: { toolCallId: 'patch-1', title: `Edit ${path}`, kind: 'edit', status: 'pending', content: hunks.map((h) => ({ type: 'diff', path, ...h })), locations: [{ path }] },
      options: [{ optionId: 'approved', kind: 'allow_once', name: 'Yes' }, { optionId: 'abort', kind: 'reject_once', name: 'No, provide feedback' }],
    },
    as: 'perm',
  };
}

export const REVIEW_LAUNCH: AgentLaunch = { ...PLAIN_LAUNCH, reviewEditPermissions: 'allow-whole' };
/** Codex's: the editor writes what was kept, the agent is never allowed to. */
export const EDITOR_WRITES_LAUNCH: AgentLaunch = { ...PLAIN_LAUNCH, reviewEditPermissions: 'editor-writes' };

export function startReviewHarness(turn: ScriptStep[], files: Record<string, string> = { 'a.txt': 'one\ntwo\nthree\n' }, launch = REVIEW_LAUNCH): Promise<AcpHarness> {
  return startAcpHarness({ files, script: { turns: [turn] }, launch });
}

/** The text of every session/prompt the agent got, in order. */
export function promptsOf(h: AcpHarness): string[] {
  return h.agentLog().filter((e) => e.method === 'session/prompt').map((e) => ((e.params?.prompt ?? []) as { text?: string }[]).map((p) => p.text ?? '').join('\n'));
}
