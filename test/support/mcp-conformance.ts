/**
 * Runs the official MCP conformance suite (`@modelcontextprotocol/conformance`, server mode) against
 * an MCP endpoint that wants a bearer token, through `auth-proxy.ts` (the suite cannot send one).
 * The suite needs Node 22 (`fs.globSync`): `scripts/provision-node.mjs 22` gives a cached one.
 */
import { execFileSync, spawn } from 'node:child_process';
import * as path from 'node:path';
import { startAuthProxy } from './auth-proxy';

export interface ConformanceRun {
  exitCode: number | null;
  output: string;
}

export function node22(root: string, nodeBinary = process.execPath): string {
  return execFileSync(nodeBinary, [path.join(root, 'scripts', 'provision-node.mjs'), '22'], { encoding: 'utf8', cwd: root, stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

export async function runConformance(root: string, node: string, port: number, token: string, outputDir: string): Promise<ConformanceRun> {
  const proxy = await startAuthProxy(port, token);
  try {
    const cli = path.join(root, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
    const baseline = path.join(root, 'test', 'fixtures', 'mcp-server-conformance-baseline.yml');
    const child = spawn(node, [cli, 'server', '--url', proxy.url, '--expected-failures', baseline, '-o', outputDir], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
    const exitCode = await new Promise<number | null>((resolve) => child.on('close', resolve));
    return { exitCode, output };
  } finally {
    await proxy.close();
  }
}
