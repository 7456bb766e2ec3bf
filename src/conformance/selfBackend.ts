/**
 * `--self`: the reference backend of this package, started as its own process (its CLI, offline
 * demo model, a fresh token, port 0) so the kit checks it exactly as it checks anyone else's. The
 * kit imports nothing of the backend: it runs the backend's command beside it, the bundled
 * dist/backend/cli.js, or src/backend/cli.ts through tsx when the kit itself runs from source.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';

export interface SelfBackend {
  url: string;
  token: string;
  stop(): Promise<void>;
}

function backendCommand(): string[] {
  const fromSource = path.extname(__filename) === '.ts';
  const cli = path.join(__dirname, '..', 'backend', fromSource ? 'cli.ts' : 'cli.js');
  if (!existsSync(cli)) throw new Error(`--self needs the reference backend beside the kit, at ${cli}`);
  return fromSource ? ['--require', 'tsx/cjs', cli] : [cli];
}

export async function startSelfBackend(timeoutMs: number): Promise<SelfBackend> {
  const token = randomBytes(24).toString('base64url');
  const child = spawn(process.execPath, [...backendCommand(), '--offline', '--host', '127.0.0.1', '--port', '0', '--log-level', 'error'], {
    env: { ...process.env, CLIENT_TOOLS_TOKEN: token },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  try {
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the reference backend did not start within ${timeoutMs} ms`)), timeoutMs);
      void exited.then(() => reject(new Error(`the reference backend exited with ${child.exitCode ?? child.signalCode}`)));
      readline.createInterface({ input: child.stdout }).once('line', (line) => {
        clearTimeout(timer);
        const port = listeningPort(line);
        if (port !== undefined) resolve(port);
        else reject(new Error(`the reference backend said ${line.slice(0, 200)}`));
      });
    });
    return { url: `ws://127.0.0.1:${port}`, token, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

/** The port of the backend CLI's one stdout line, `{"event":"listening","port":N}`. */
function listeningPort(line: string): number | undefined {
  try {
    const event = JSON.parse(line) as { event?: unknown; port?: unknown };
    return event.event === 'listening' && typeof event.port === 'number' ? event.port : undefined;
  } catch {
    return undefined;
  }
}
