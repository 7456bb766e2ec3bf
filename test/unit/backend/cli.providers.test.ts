import { strict as assert } from 'node:assert';
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { parseCli, UsageError } from '../../../src/backend/cli';
import { DEFAULT_AZURE_API_VERSION } from '../../../src/backend/model/endpoint';
import { TestClient } from '../../support/backend-client';
import { startFakeOpenAI } from '../../support/fake-openai';

const ROOT = path.resolve(__dirname, '../../..');

describe('backend CLI: providers and wires', () => {
  describe('parseCli', () => {
    it('adds api and provider to the model config only when given', () => {
      const env = { CLIENT_TOOLS_MODEL: 'gpt-5', OPENAI_API_KEY: 'sk-env' };
      assert.deepEqual(parseCli([], env).options.model, { model: 'gpt-5', baseURL: undefined, apiKey: 'sk-env' });
      assert.deepEqual(parseCli(['--api', 'responses'], env).options.model, { model: 'gpt-5', baseURL: undefined, apiKey: 'sk-env', api: 'responses' });
      assert.deepEqual(parseCli(['--api', 'chat', '--provider', 'openai'], env).options.model, { model: 'gpt-5', baseURL: undefined, apiKey: 'sk-env', api: 'chat', provider: 'openai' });
    });

    it('builds an Azure config from flags and the environment, the Azure key first, a token instead of any key', () => {
      const flags = ['--provider', 'azure', '--azure-endpoint', 'https://r.openai.azure.com/', '--azure-deployment', 'dep', '--model', 'gpt-4.1'];
      assert.deepEqual(parseCli(flags, { OPENAI_API_KEY: 'sk-ext', AZURE_OPENAI_API_KEY: 'az-key' }).options.model, {
        model: 'gpt-4.1', apiKey: 'az-key', provider: 'azure',
        azure: { endpoint: 'https://r.openai.azure.com/', apiVersion: DEFAULT_AZURE_API_VERSION, deployment: 'dep' },
      });
      assert.deepEqual(parseCli(flags, { OPENAI_API_KEY: 'sk-ext' }).options.model, {
        model: 'gpt-4.1', apiKey: 'sk-ext', provider: 'azure',
        azure: { endpoint: 'https://r.openai.azure.com/', apiVersion: DEFAULT_AZURE_API_VERSION, deployment: 'dep' },
      }, 'the key the extension stores (passed as OPENAI_API_KEY) serves Azure too');
      const fromEnv = parseCli(['--provider', 'azure', '--api', 'responses'], { AZURE_OPENAI_ENDPOINT: 'https://e.openai.azure.com', OPENAI_API_VERSION: '2024-10-21', AZURE_OPENAI_AD_TOKEN: 'eyJ.tok', AZURE_OPENAI_API_KEY: 'az-key' });
      assert.notEqual(fromEnv.options.model, 'offline', 'azure alone is enough to leave the demo model');
      assert.deepEqual(fromEnv.options.model, {
        model: 'gpt-4.1-mini', apiKey: undefined, api: 'responses', provider: 'azure',
        azure: { endpoint: 'https://e.openai.azure.com', apiVersion: '2024-10-21', entraToken: 'eyJ.tok' },
      });
    });

    it('refuses unknown values, Azure flags without --provider azure, Azure without an endpoint, and --base-url with Azure', () => {
      assert.throws(() => parseCli(['--api', 'assistants', '--model', 'm'], {}), /--api must be one of chat, responses/);
      assert.throws(() => parseCli(['--provider', 'bedrock'], {}), /--provider must be one of openai, azure/);
      assert.throws(() => parseCli(['--azure-endpoint', 'https://r.openai.azure.com/'], {}), /--azure-endpoint needs --provider azure/);
      assert.throws(() => parseCli(['--provider', 'azure'], {}), UsageError);
      assert.throws(() => parseCli(['--provider', 'azure', '--azure-endpoint', 'https://r/', '--base-url', 'http://x/v1'], {}), /--base-url does not apply/);
    });
  });

  it('runs a chat through Azure on the Responses API from real flags, the key from the environment', async function () {
    this.timeout(30_000);
    const fake = await startFakeOpenAI();
    let child: ChildProcess | undefined;
    try {
      fake.enqueue({ text: 'Hello through Azure Responses' });
      const clean = { ...process.env };
      for (const k of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'CLIENT_TOOLS_MODEL', 'AZURE_OPENAI_API_KEY', 'AZURE_OPENAI_AD_TOKEN', 'AZURE_OPENAI_ENDPOINT', 'OPENAI_API_VERSION']) delete clean[k];
      const args = ['-r', 'tsx/cjs', 'src/backend/cli.ts', '--port', '0', '--provider', 'azure', '--api', 'responses', '--azure-endpoint', fake.azureEndpoint, '--azure-deployment', 'prod-gpt', '--azure-api-version', '2025-04-01-preview'];
      child = spawn(process.execPath, args, { cwd: ROOT, env: { ...clean, CLIENT_TOOLS_TOKEN: 'cli-azure-token-0123456789', AZURE_OPENAI_API_KEY: 'az-secret' }, stdio: ['ignore', 'pipe', 'pipe'] });
      const started = child;
      const port = await new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no ready line')), 20_000);
        readline.createInterface({ input: started.stdout! }).on('line', (line) => {
          const m = /"port":(\d+)/.exec(line);
          if (m) {
            clearTimeout(timer);
            resolve(Number(m[1]));
          }
        });
      });
      const { client } = await TestClient.open(`ws://127.0.0.1:${port}`, 'cli-azure-token-0123456789');
      const { runId, finished } = await client.run('t1', 'hi');
      assert.equal(finished.reason, 'completed');
      assert.equal(client.text(runId), 'Hello through Azure Responses');
      const r = fake.requests[0];
      assert.deepEqual([r.path, r.query['api-version'], r.body.model, r.headers['api-key']], ['/openai/responses', '2025-04-01-preview', 'prod-gpt', 'az-secret']);
      await client.close();
    } finally {
      child?.kill('SIGKILL');
      await fake.close();
    }
  });
});
