/**
 * One turn of a real agent with its preset's launch (src/agents/presetLaunch.ts), through the
 * extension's ACP client in plain Node, against its fake model endpoint: the script is built once
 * the workspace exists (it needs absolute paths), every prompt of the editor is answered by
 * `decide` and kept, diffs are accepted whole unless `review` says otherwise, and commands run for
 * real. What the gate saw (prompts, call records) and what the model was sent come back.
 */
import type { PermissionAnswer, PermissionPrompt, PermissionReply } from '../../../src/core/consent/presenter';
import { PLAIN_LAUNCH, PRESET_LAUNCHES, type AgentLaunch } from '../../../src/agents/presetLaunch';
import { SupervisedProcess } from '../../../src/tools/terminal/processSupervisor';
import type { RunEvent } from '../../../src/protocol';
import type { HeldDiff } from '../fake-catalog';
import { startAcpHarness, type AcpHarness } from './acp-harness';
import { launchAgent, type AgentLaunch as LaunchedAgent, type AgentName } from './agent-launch';
import type { AgentStep } from './script';

/** The npm package of each test agent, whose preset launch it gets. */
export const PRESET_PACKAGE: Record<AgentName, string> = {
  claude: '@zed-industries/claude-code-acp',
  'claude-agent': '@agentclientprotocol/claude-agent-acp',
  gemini: '@google/gemini-cli',
  codex: '@zed-industries/codex-acp',
  opencode: 'opencode-ai',
};

export function presetLaunchOf(name: AgentName): AgentLaunch {
  return PRESET_LAUNCHES[PRESET_PACKAGE[name]] ?? PLAIN_LAUNCH;
}

export interface PresetRun {
  h: AcpHarness;
  launched: LaunchedAgent;
  /** Every prompt the editor showed, in order. */
  prompts: PermissionPrompt[];
  /** The turn's run events. */
  events: RunEvent[];
  /** Absolute path of a workspace file. */
  file(relative: string): string;
  close(): Promise<void>;
}

export interface PresetRunOptions {
  files: Record<string, string>;
  steps: (file: (relative: string) => string) => AgentStep[];
  /** The answer to each prompt; default allow. */
  decide?: (prompt: PermissionPrompt) => PermissionAnswer | PermissionReply;
  /** The launch to use; default the preset's. */
  launch?: AgentLaunch;
  /** Register the test's Probe tools beside the built-in groups; default true. */
  probeTools?: boolean;
  /** Answers each diff review; default accept the whole proposal. */
  review?: (diff: HeldDiff) => void;
  /** Runs before the turn (after the workspace exists). */
  before?: (run: { file(relative: string): string; h: AcpHarness; home: string }) => void | Promise<void>;
}

export async function runPresetAgent(name: AgentName, options: PresetRunOptions): Promise<PresetRun> {
  const launched = await launchAgent(name, []);
  let h: AcpHarness;
  try {
    h = await startAcpHarness({
      files: options.files,
      program: { command: launched.command, args: launched.args, env: launched.env },
      launch: options.launch ?? presetLaunchOf(name),
      ...(options.probeTools !== undefined ? { probeTools: options.probeTools } : {}),
    });
  } catch (e) {
    await launched.dispose();
    throw e;
  }
  const file = (relative: string) => h.ws.file(relative);
  const prompts: PermissionPrompt[] = [];
  // The extension's default prompt style: the chat's card (the modal's 24 rows do not hold every agent's raw input).
  h.ws.host.surface = 'chat';
  h.ws.host.holdPrompts();
  let closed = false;
  void (async () => {
    while (!closed) {
      const held = await h.ws.host.nextPrompt();
      prompts.push(held.prompt);
      const answer = options.decide?.(held.prompt) ?? 'allow';
      held.answer(typeof answer === 'string' ? answer : (answer as never));
    }
  })();
  void (async () => {
    while (!closed) {
      const diff = await h.ws.host.catalog.nextDiff();
      if (options.review) options.review(diff);
      else diff.accept();
    }
  })();
  h.ws.host.catalog.commandHandler = async (request, signal) => {
    const run = new SupervisedProcess({ ...request, shell: true }, { signal });
    const end = await run.ended;
    if (!end.started) throw end.error;
    return { exitCode: end.exitCode, output: end.output, truncated: end.truncated, timedOut: end.timedOut, stopped: end.stopped, via: 'process' };
  };
  await options.before?.({ file, h, home: launched.home });
  launched.model.setSteps(options.steps(file));
  return {
    h,
    launched,
    prompts,
    events: h.events,
    file,
    async close() {
      closed = true;
      await h.close();
      await launched.dispose();
    },
  };
}
