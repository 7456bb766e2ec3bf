import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import * as readline from 'node:readline';
import * as vscode from 'vscode';

export interface EmbeddedBackendOptions {
  extensionPath: string;
  baseUrl: string;
  model: string;
  /** `chat` or `responses`; `openai` or `azure` with its resource, deployment and api-version (empty: the CLI's defaults). */
  api: 'chat' | 'responses';
  provider: 'openai' | 'azure';
  azure: { endpoint: string; deployment: string; apiVersion: string };
  /** The model's context window in tokens; 0 or absent: the backend's default for the model. */
  contextWindow?: number;
  apiKey: string | undefined;
  /** `clientTools.model.vision` and `.imageMaxSide`: whether and how large tool images go to the model. */
  vision: string;
  imageMaxSide: number;
  /** How long the backend waits for a model's answer, and how often it asks again (clientTools.model.*). */
  patience?: { firstByteTimeoutSeconds: number; idleTimeoutSeconds: number; retries: number };
  invokeTimeoutSeconds: number;
  disconnectStrategy: string;
  /** Where the backend saves conversations (the extension's global storage), so they survive restarts. */
  dataDir?: string;
  log: vscode.LogOutputChannel;
}

export interface EmbeddedEndpoint {
  url: string;
  token: string;
  offline: boolean;
}

const READY_TIMEOUT_MS = 15_000;
const MAX_RESTARTS = 5;

/**
 * The bundled backend as a child process this extension owns: started on a random loopback port
 * with a fresh token, stopped on dispose, restarted (a bounded number of times) if it dies.
 */
export class EmbeddedBackend implements vscode.Disposable {
  private child: ChildProcess | undefined;
  private endpoint: EmbeddedEndpoint | undefined;
  private starting: Promise<EmbeddedEndpoint> | undefined;
  private disposed = false;
  private restarts = 0;
  private readonly onDidRestartEmitter = new vscode.EventEmitter<EmbeddedEndpoint>();
  /** Fires with the new endpoint after the backend died and came back on another port. */
  readonly onDidRestart = this.onDidRestartEmitter.event;

  constructor(private readonly options: EmbeddedBackendOptions) {}

  get offline(): boolean {
    return !this.options.baseUrl && !this.options.model && this.options.provider !== 'azure';
  }

  start(): Promise<EmbeddedEndpoint> {
    if (this.endpoint) return Promise.resolve(this.endpoint);
    this.starting ??= this.spawnBackend().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private spawnBackend(): Promise<EmbeddedEndpoint> {
    const { options } = this;
    const token = randomBytes(32).toString('base64url');
    const cli = path.join(options.extensionPath, 'dist', 'backend', 'cli.js');
    const args = [cli, '--host', '127.0.0.1', '--port', '0', '--invoke-timeout', String(options.invokeTimeoutSeconds * 1000), '--disconnect-strategy', options.disconnectStrategy];
    if (options.dataDir) args.push('--data-dir', options.dataDir);
    if (this.offline) args.push('--offline');
    else {
      if (options.baseUrl) args.push('--base-url', options.baseUrl);
      if (options.model) args.push('--model', options.model);
      if (options.api !== 'chat') args.push('--api', options.api);
      if (options.provider === 'azure') args.push(...azureArgs(options.azure));
      if (options.contextWindow) args.push('--context-window', String(options.contextWindow));
      args.push('--vision', options.vision, '--image-max-side', String(options.imageMaxSide));
      const patience = options.patience;
      if (patience) args.push('--model-first-byte-timeout', `${patience.firstByteTimeoutSeconds}s`, '--model-idle-timeout', `${patience.idleTimeoutSeconds}s`, '--model-retries', String(Math.round(patience.retries)));
    }
    // Secrets travel by environment, never on the command line (visible in `ps`) or in the log.
    const env: NodeJS.ProcessEnv = { ...process.env, ELECTRON_RUN_AS_NODE: '1', CLIENT_TOOLS_TOKEN: token };
    // The stored key is the one used, for Azure too (an Entra token in VS Code's own environment,
    // AZURE_OPENAI_AD_TOKEN, still passes through and takes precedence there).
    delete env.OPENAI_API_KEY;
    delete env.AZURE_OPENAI_API_KEY;
    if (options.apiKey) env.OPENAI_API_KEY = options.apiKey;
    const where = options.provider === 'azure' ? `Azure ${options.azure.endpoint || '(AZURE_OPENAI_ENDPOINT)'}` : options.baseUrl || 'OpenAI';
    options.log.info(`Starting the bundled backend (${this.offline ? 'offline demo model' : `model ${options.model || '(default)'} at ${where}, ${options.api} API`})`);

    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
    this.child = child;
    readline.createInterface({ input: child.stderr! }).on('line', (line) => options.log.info(`[backend] ${line}`));

    return new Promise<EmbeddedEndpoint>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`The bundled backend did not start within ${READY_TIMEOUT_MS / 1000} s`));
        child.kill();
      }, READY_TIMEOUT_MS);
      readline.createInterface({ input: child.stdout! }).on('line', (line) => {
        const port = parseReadyLine(line);
        if (port === undefined) {
          options.log.info(`[backend] ${line}`);
          return;
        }
        clearTimeout(timer);
        this.endpoint = { url: `ws://127.0.0.1:${port}`, token, offline: this.offline };
        options.log.info(`Bundled backend listening on 127.0.0.1:${port} (pid ${child.pid})`);
        resolve(this.endpoint);
      });
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        const wasReady = this.endpoint !== undefined;
        this.endpoint = undefined;
        this.child = undefined;
        if (this.disposed) return;
        options.log.warn(`The bundled backend exited (code ${code ?? 'none'}, signal ${signal ?? 'none'})`);
        if (!wasReady) {
          reject(new Error(`The bundled backend exited before it was ready (code ${code ?? 'none'})`));
          return;
        }
        if (this.restarts++ >= MAX_RESTARTS) {
          options.log.error(`Not restarting the bundled backend: it died ${MAX_RESTARTS} times`);
          return;
        }
        this.start().then(
          (ep) => this.onDidRestartEmitter.fire(ep),
          (err: unknown) => options.log.error(`Restarting the bundled backend failed: ${String(err)}`),
        );
      });
    });
  }

  dispose(): void {
    this.disposed = true;
    this.child?.kill();
    this.child = undefined;
    this.onDidRestartEmitter.dispose();
  }
}

function azureArgs(azure: EmbeddedBackendOptions['azure']): string[] {
  const args = ['--provider', 'azure'];
  if (azure.endpoint) args.push('--azure-endpoint', azure.endpoint);
  if (azure.deployment) args.push('--azure-deployment', azure.deployment);
  if (azure.apiVersion) args.push('--azure-api-version', azure.apiVersion);
  return args;
}

/** The CLI prints `{"event":"listening","port":N}` on stdout when ready. */
export function parseReadyLine(line: string): number | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const v = JSON.parse(line) as { event?: unknown; port?: unknown };
    return v.event === 'listening' && typeof v.port === 'number' && Number.isInteger(v.port) && v.port > 0 && v.port < 65536 ? v.port : undefined;
  } catch {
    return undefined;
  }
}
