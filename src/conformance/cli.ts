/**
 * `client-tools-conformance`: the protocol's conformance kit as a command.
 *
 *   client-tools-conformance ws://127.0.0.1:PORT --token T   check a backend (the kit plays the extension)
 *   client-tools-conformance --self                          check this package's own backend
 *   client-tools-conformance --serve --port N --token T      check an extension (the kit plays the backend)
 *
 * The report goes to stdout (text, or JSON with --json); the exit code is 0 only when every
 * required check passed, 1 when one failed, 2 on a usage error.
 */
import { parseArgs } from 'node:util';
import { BACKEND_CHECKS, checkBackend } from './backend';
import { selectChecks, UnknownCheck } from './check';
import { serveForExtension } from './extension';
import type { Report } from './report';
import { formatJson, formatText } from './report';
import { startSelfBackend } from './selfBackend';

export const USAGE = `Usage:
  client-tools-conformance ws://HOST:PORT --token T [options]   check a backend (the kit plays the extension)
  client-tools-conformance --self [options]                     check the reference backend beside the kit (offline demo
                                                                model; in a clone of client-tools after npm run build)
  client-tools-conformance --serve [--port N] [--token T] [options]
                                                                check an extension (the kit plays the backend)

Options:
  --token <token>      The backend's token, or the one the extension must send (default: env CLIENT_TOOLS_TOKEN).
  --json               Print the report as JSON.
  --timeout <seconds>  How long one expected answer may take (default 10; with --serve 60, a person may answer a prompt).
  --origin-check       Also check the Origin and Host refusals when the backend is not on loopback.
  --check <id>         Run only this check, or every check under a prefix such as "limits"; repeat it for more
                       (backend mode; the tools.* checks after tools.expansion need it selected too).
  --prompt <text>      What the kit asks the backend's model, which must then read a file with the kit's ReadFile tool
                       (default "read conformance.png", which the reference backend's offline demo model acts on).
  --port <n>           With --serve: the port to listen on (default 0: any free port, printed on stderr).
  --host <address>     With --serve: the address to listen on (default 127.0.0.1).
  --wait <seconds>     With --serve: how long to wait for the extension to connect (default 300).
  --tool <name>        With --serve: the harmless tool to call (default GetWorkspaceFolders, or the first tool that
                       needs neither permission nor arguments); --args '<json>' gives its arguments.
  --read <path>        With --serve: a binary file of the open workspace (e.g. an image) to read with ReadFile.
  --help               Show this help.
`;

export class UsageError extends Error {}

export type Command =
  | { kind: 'help' }
  | { kind: 'backend'; url: string | 'self'; token: string | undefined; json: boolean; waitMs: number; originCheck: boolean; prompt: string; checks?: string[] }
  | { kind: 'serve'; host: string; port: number; token: string | undefined; json: boolean; waitMs: number; connectMs: number; tool?: string; args?: Record<string, unknown>; readPath?: string };

export function parseCommand(argv: string[], env: NodeJS.ProcessEnv): Command {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        token: { type: 'string' },
        json: { type: 'boolean' },
        timeout: { type: 'string' },
        'origin-check': { type: 'boolean' },
        check: { type: 'string', multiple: true },
        prompt: { type: 'string' },
        self: { type: 'boolean' },
        serve: { type: 'boolean' },
        port: { type: 'string' },
        host: { type: 'string' },
        wait: { type: 'string' },
        tool: { type: 'string' },
        args: { type: 'string' },
        read: { type: 'string' },
        help: { type: 'boolean' },
      },
    });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return { kind: 'help' };
  const token = values.token ?? (env.CLIENT_TOOLS_TOKEN || undefined);
  const json = values.json === true;
  if (values.serve) {
    if (positionals.length > 0 || values.self) throw new UsageError('--serve takes no URL and no --self');
    if (values.check) throw new UsageError('--check selects backend checks; --serve runs every extension check');
    return {
      kind: 'serve',
      host: values.host ?? '127.0.0.1',
      port: values.port !== undefined ? integer('--port', values.port, 0, 65535) : 0,
      token,
      json,
      waitMs: seconds('--timeout', values.timeout ?? '60'),
      connectMs: seconds('--wait', values.wait ?? '300'),
      tool: values.tool,
      args: values.args !== undefined ? jsonObject('--args', values.args) : undefined,
      readPath: values.read,
    };
  }
  const waitMs = seconds('--timeout', values.timeout ?? '10');
  const common = { json, waitMs, originCheck: values['origin-check'] === true, prompt: values.prompt ?? 'read conformance.png', ...checksOption(values.check) };
  if (values.self) {
    if (positionals.length > 0) throw new UsageError('--self takes no URL');
    return { kind: 'backend', url: 'self', token: undefined, ...common };
  }
  if (positionals.length !== 1 || !/^wss?:\/\//.test(positionals[0])) throw new UsageError('give the backend\'s ws:// or wss:// URL, --self or --serve');
  if (!token) throw new UsageError('--token (or CLIENT_TOOLS_TOKEN) is required to check a backend');
  return { kind: 'backend', url: positionals[0], token, ...common };
}

function checksOption(names: string[] | undefined): { checks?: string[] } {
  if (!names) return {};
  try {
    selectChecks(BACKEND_CHECKS, names);
  } catch (e) {
    if (e instanceof UnknownCheck) throw new UsageError(e.message);
    throw e;
  }
  return { checks: names };
}

function integer(flag: string, text: string, min: number, max: number): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < min || n > max) throw new UsageError(`${flag} must be an integer from ${min} to ${max}, got "${text}"`);
  return n;
}

function seconds(flag: string, text: string): number {
  const n = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || n <= 0) throw new UsageError(`${flag} must be a number of seconds, got "${text}"`);
  return Math.round(n * 1000);
}

function jsonObject(flag: string, text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(`${flag} must be a JSON object, got "${text}"`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UsageError(`${flag} must be a JSON object`);
  return value as Record<string, unknown>;
}

async function run(command: Exclude<Command, { kind: 'help' }>, log: (line: string) => void): Promise<Report> {
  if (command.kind === 'serve') {
    const { server, report } = await serveForExtension(command);
    log(`client-tools-conformance: listening on ${server.url}; point the extension at it (clientTools.backendUrl${command.token ? ', with the token' : ''})`);
    return report;
  }
  const { originCheck, prompt, waitMs, checks } = command;
  if (command.url !== 'self') return checkBackend({ url: command.url, token: command.token ?? '', originCheck, prompt, waitMs, checks });
  const self = await startSelfBackend(command.waitMs * 3);
  try {
    return await checkBackend({ url: self.url, token: self.token, originCheck, prompt, waitMs, checks });
  } finally {
    await self.stop();
  }
}

export async function main(argv: string[] = process.argv.slice(2), env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let command: Command;
  try {
    command = parseCommand(argv, env);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`client-tools-conformance: ${e.message}\n\n${USAGE}`);
    return 2;
  }
  if (command.kind === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  const report = await run(command, (line) => process.stderr.write(`${line}\n`));
  process.stdout.write(command.json ? formatJson(report) : formatText(report));
  return report.ok ? 0 : 1;
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (e: unknown) => {
      process.stderr.write(`client-tools-conformance: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exit(1);
    },
  );
}
