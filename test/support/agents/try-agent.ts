/**
 * A tiny ACP client on the official SDK, to see a real agent run offline against its fake model
 * before anything is built on it: `npx tsx test/support/agents/try-agent.ts claude|gemini|codex|opencode`.
 * It logs every ACP method both ways, allows every permission request once, serves fs/* and
 * terminal/* itself on a temporary workspace, and passes the editor's MCP server (the plain-Node
 * harness, with its Echo tool) in `session/new`. Exit code 0 when the turn ended with end_turn.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { startMcpHarness } from '../mcp-harness';
import { launchAgent, type AgentName } from './agent-launch';
import type { AgentStep } from './script';

const SCENARIOS: Record<AgentName, (file: string) => AgentStep[]> = {
  claude: (file) => [
    { tool: 'Echo', args: { text: 'hello from claude' } },
    { tool: 'mcp__acp__Read', args: { file_path: file } },
    { tool: 'mcp__acp__Write', args: { file_path: file, content: 'written by claude\n' } },
    { tool: 'mcp__acp__Bash', args: { command: 'echo shell-ran', description: 'Say something', timeout: 10000 } },
    { text: 'All done.' },
  ],
  'claude-agent': () => [
    { tool: 'Echo', args: { text: 'hello from claude-agent-acp' } },
    { tool: 'ReadFile', args: { path: 'hello.txt' } },
    { text: 'All done.' },
  ],
  gemini: (file) => [
    { tool: 'Echo', args: { text: 'hello from gemini' } },
    { tool: 'read_file', args: { file_path: file } },
    { tool: 'write_file', args: { file_path: file, content: 'written by gemini\n' } },
    { tool: 'run_shell_command', args: { command: 'echo shell-ran', dir_path: path.dirname(file) } },
    { text: 'All done.' },
  ],
  codex: () => [
    { tool: 'Echo', args: { text: 'hello from codex' } },
    { tool: 'exec_command', args: { cmd: 'echo shell-ran' } },
    { text: 'All done.' },
  ],
  opencode: (file) => [
    { tool: 'Echo', args: { text: 'hello from opencode' } },
    { tool: 'read', args: { filePath: file } },
    { tool: 'write', args: { filePath: file, content: 'written by opencode\n' } },
    { tool: 'bash', args: { command: 'echo shell-ran', description: 'Say something' } },
    { text: 'All done.' },
  ],
};

async function main(): Promise<number> {
  const name = (process.argv[2] ?? 'claude') as AgentName;
  const mcp = await startMcpHarness({ backgroundCalls: 'allow', files: { 'hello.txt': 'hello world\n' } });
  const folder = mcp.ws.host.workspaceFolders()[0]?.path as string;
  const file = path.join(folder, 'hello.txt');
  const launch = await launchAgent(name, SCENARIOS[name](file));
  const log = (line: string) => console.log(`[${((Date.now() - started) / 1000).toFixed(2)}s] ${line}`);
  const started = Date.now();
  const child = spawn(launch.command, launch.args, { env: launch.env, cwd: folder, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => { stderr = (stderr + d.toString()).slice(-20_000); });
  const terminals = new Map<string, { output: string; exit: Promise<{ exitCode: number | null; signal: string | null }> }>();
  const app = acp.client({ name: 'try-agent' })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      const u = params.update as Record<string, unknown>;
      log(`<- session/update ${String(u.sessionUpdate)} ${JSON.stringify(u).slice(0, 300)}`);
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      log(`<- session/request_permission ${JSON.stringify(params.toolCall).slice(0, 400)} options=${params.options.map((o) => o.kind).join(',')}`);
      const allow = params.options.find((o) => o.kind === 'allow_once') ?? params.options[0];
      return { outcome: { outcome: 'selected', optionId: allow?.optionId ?? '' } };
    })
    .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
      log(`<- fs/read_text_file ${JSON.stringify(params)}`);
      return { content: fs.readFileSync(params.path, 'utf8') };
    })
    .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
      log(`<- fs/write_text_file ${params.path} (${params.content.length} chars)`);
      fs.writeFileSync(params.path, params.content);
      return {};
    })
    .onRequest(acp.methods.client.terminal.create, ({ params }) => {
      log(`<- terminal/create ${JSON.stringify(params)}`);
      const id = `t${terminals.size + 1}`;
      const proc = spawn('/bin/sh', ['-c', [params.command, ...(params.args ?? [])].join(' ')], { cwd: params.cwd ?? folder });
      const entry = { output: '', exit: new Promise<{ exitCode: number | null; signal: string | null }>((resolve) => proc.on('exit', (exitCode, signal) => resolve({ exitCode, signal }))) };
      proc.stdout.on('data', (d: Buffer) => (entry.output += d.toString()));
      proc.stderr.on('data', (d: Buffer) => (entry.output += d.toString()));
      terminals.set(id, entry);
      return { terminalId: id };
    })
    .onRequest(acp.methods.client.terminal.output, async ({ params }) => {
      log(`<- terminal/output ${params.terminalId}`);
      const t = terminals.get(params.terminalId);
      return { output: t?.output ?? '', truncated: false };
    })
    .onRequest(acp.methods.client.terminal.waitForExit, async ({ params }) => {
      log(`<- terminal/wait_for_exit ${params.terminalId}`);
      return (await terminals.get(params.terminalId)?.exit) ?? { exitCode: null, signal: null };
    })
    .onRequest(acp.methods.client.terminal.release, ({ params }) => {
      log(`<- terminal/release ${params.terminalId}`);
      return {};
    })
    .onRequest(acp.methods.client.terminal.kill, ({ params }) => {
      log(`<- terminal/kill ${params.terminalId}`);
      return {};
    });
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>);
  const timeout = setTimeout(() => {
    log('TIMEOUT after 120 s');
    process.kill(-(child.pid as number), 'SIGKILL');
  }, 120_000);
  let code = 1;
  try {
    await app.connectWith(stream, async (agent) => {
      const init = await agent.request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
        clientInfo: { name: 'try-agent', version: '0' },
      });
      log(`-> initialize: ${JSON.stringify(init).slice(0, 600)}`);
      const session = await agent.request(acp.methods.agent.session.new, {
        cwd: folder,
        mcpServers: [{ type: 'http', name: 'clienttools', url: mcp.server.url, headers: [{ name: 'Authorization', value: `Bearer ${mcp.token}` }] }],
      });
      log(`-> session/new: ${JSON.stringify(session).slice(0, 600)}`);
      const result = await agent.request(acp.methods.agent.session.prompt, { sessionId: session.sessionId, prompt: [{ type: 'text', text: 'Run the scripted steps.' }] });
      log(`-> session/prompt: ${JSON.stringify(result)}`);
      if (result.stopReason === 'end_turn') code = 0;
    });
  } catch (e) {
    log(`FAILED: ${(e as Error).stack ?? String(e)}`);
  } finally {
    clearTimeout(timeout);
    try {
      process.kill(-(child.pid as number), 'SIGKILL');
    } catch {
      // gone already
    }
  }
  log(`model requests: ${launch.model.requests.all.map((r) => `${r.path}${r.side ? '(side)' : `#${r.replies}`}`).join(' ')}`);
  for (const r of launch.model.requests.main) log(`  step ${r.replies} tools=${r.tools.length} results=${JSON.stringify(r.toolResults.map((t) => t.slice(0, 120)))}`);
  log(`MCP calls: ${mcp.records.filter((r) => r.status === 'succeeded').map((r) => r.toolName).join(', ')}`);
  log(`file now: ${JSON.stringify(fs.readFileSync(file, 'utf8'))}`);
  if (code !== 0) log(`stderr tail: ${stderr.slice(-3000)}`);
  await launch.dispose();
  await mcp.close();
  return code;
}

void main().then((code) => process.exit(code));
