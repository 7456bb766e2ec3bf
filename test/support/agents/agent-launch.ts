/**
 * How each real agent runs offline in a test: its installed command (scripts/provision-agents.mjs,
 * installed on first use),
 * a fresh HOME with the configuration that points it at its fake model endpoint and keeps it from
 * phoning home, and the environment variables that do the same. Facts from
 * /work/shared/notes/agents-offline.md; each agent gets a folder of its own, removed by `dispose`.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startFakeAnthropic } from './fake-anthropic';
import { startFakeGemini } from './fake-gemini';
import { startFakeOpenAIAgents } from './fake-openai-agents';
import type { AgentStep, FakeModel } from './script';

export type AgentName = 'claude' | 'claude-agent' | 'gemini' | 'codex' | 'opencode';

export interface AgentLaunch {
  name: AgentName;
  command: string;
  args: string[];
  /** The whole environment for the agent (not merged with the test's). */
  env: Record<string, string>;
  /** The fake model endpoint it talks to. */
  model: FakeModel;
  /** The agent's HOME (its configuration and its session files). */
  home: string;
  dispose(): Promise<void>;
}

interface ProvisionModule {
  agentNamed(name: string): unknown;
  provisionAgent(agent: unknown, options?: { log?: (line: string) => void }): Promise<{ command: string; args: string[] }>;
}

/** The agent's command, installed into the cache first if it is not there (pinned, from the npm registry; quick when it is). */
export async function installedAgent(name: AgentName): Promise<{ command: string; args: string[] }> {
  // @ts-expect-error plain ESM script without type declarations (its JSDoc documents the shape)
  const provision = await import('../../../scripts/provision-agents.mjs') as ProvisionModule;
  return provision.provisionAgent(provision.agentNamed(name));
}

/** A minimal environment: nothing of the test runner's (no keys, no proxies), PATH for `sh` and `node`. */
function baseEnv(home: string): Record<string, string> {
  return {
    HOME: home,
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    LANG: 'C.UTF-8',
    TMPDIR: path.join(home, 'tmp'),
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    XDG_STATE_HOME: path.join(home, '.local', 'state'),
    NO_COLOR: '1',
  };
}

export async function launchAgent(name: AgentName, steps: AgentStep[]): Promise<AgentLaunch> {
  const installed = await installedAgent(name);
  const home = fs.mkdtempSync(path.join(os.tmpdir(), `client-tools-${name}-home-`));
  fs.mkdirSync(path.join(home, 'tmp'));
  const env = baseEnv(home);
  let model: FakeModel;
  switch (name) {
    case 'claude':
    case 'claude-agent':
      model = await startFakeAnthropic(steps);
      Object.assign(env, {
        ANTHROPIC_BASE_URL: model.baseUrl,
        ANTHROPIC_API_KEY: 'sk-ant-fake',
        // Claude Code refuses to skip its own permission checks as root without it; CI runs as root.
        IS_SANDBOX: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_AUTOUPDATER: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_ERROR_REPORTING: '1',
      });
      break;
    case 'gemini':
      model = await startFakeGemini(steps);
      writeFile(path.join(home, '.gemini', 'settings.json'), JSON.stringify({
        security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } },
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
        general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
      }));
      Object.assign(env, {
        GOOGLE_GEMINI_BASE_URL: model.baseUrl,
        GEMINI_API_KEY: 'fake-key',
        GEMINI_CLI_TRUST_WORKSPACE: 'true',
        GEMINI_CLI_NO_RELAUNCH: 'true',
      });
      break;
    case 'codex':
      model = await startFakeOpenAIAgents(steps, 'openai-responses');
      writeFile(path.join(home, '.codex', 'config.toml'), [
        'model = "fake-model"',
        'model_provider = "fake"',
        'check_for_update_on_startup = false',
        '[model_providers.fake]',
        'name = "Fake"',
        `base_url = "${model.baseUrl}/v1"`,
        'env_key = "FAKE_API_KEY"',
        'wire_api = "responses"',
        '[analytics]',
        'enabled = false',
        '[otel]',
        'exporter = "none"',
        '',
      ].join('\n'));
      Object.assign(env, { CODEX_HOME: path.join(home, '.codex'), FAKE_API_KEY: 'fake-key' });
      break;
    case 'opencode':
      model = await startFakeOpenAIAgents(steps, 'openai-chat');
      writeFile(path.join(home, '.config', 'opencode', 'opencode.json'), JSON.stringify({
        autoupdate: false,
        share: 'disabled',
        model: 'fake/fake-model',
        small_model: 'fake/fake-model',
        provider: {
          fake: {
            npm: '@ai-sdk/openai-compatible',
            name: 'Fake',
            options: { baseURL: `${model.baseUrl}/v1`, apiKey: 'fake-key' },
            models: { 'fake-model': { name: 'Fake', tool_call: true, limit: { context: 100000, output: 4096 } } },
          },
        },
      }));
      Object.assign(env, {
        OPENCODE_DISABLE_AUTOUPDATE: '1',
        OPENCODE_DISABLE_MODELS_FETCH: '1',
        OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
        OPENCODE_DISABLE_SHARE: '1',
      });
      break;
  }
  return {
    name,
    command: installed.command,
    args: installed.args,
    env,
    model,
    home,
    async dispose() {
      await model.close();
      // The agent (or a child it left) may still write its config there until its SIGKILL grace ends.
      for (let attempt = 0; ; attempt++) {
        try {
          fs.rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
          return;
        } catch (e) {
          if (attempt >= 10) throw e;
          await new Promise((r) => setTimeout(r, 500));
        }
      }
    },
  };
}

function writeFile(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}
