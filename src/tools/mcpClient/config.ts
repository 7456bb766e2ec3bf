/**
 * The user's MCP servers as VS Code configures them (`.vscode/mcp.json` of a workspace folder, the
 * user's `mcp` setting): parsed with zod entry by entry, so one bad entry is reported by name and
 * never takes the others down; variables resolved; each server described exactly as it will run
 * (what the approval prompt shows) and keyed by that exact launch (what the approval remembers).
 *
 * Format (VS Code's): `{ "servers": { "<name>": { "type": "stdio", "command", "args", "env", "cwd" }
 * | { "type": "http", "url", "headers" } }, "inputs": [...] }`; `type` may be left out when
 * `command` or `url` says it. Unsupported here, each with its own message: `${input:…}` prompts,
 * `${command:…}` and `${config:…}` variables, `envFile`, and the legacy `sse` type.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { consent, consentLines, fitConsent, type ConsentText, type FittedConsent } from '../../core/consent/consentText';

/** Where a server's entry came from: the user's settings, or one workspace folder's `.vscode/mcp.json`. */
export type McpConfigSource = { kind: 'user' } | { kind: 'workspace'; folderName: string; folderPath: string; file: string };

export type McpLaunch =
  | { type: 'stdio'; command: string; args: string[]; env: Record<string, string>; cwd?: string }
  | { type: 'http'; url: string; headers: Record<string, string> };

export interface McpServerConfig {
  /** The name as configured (the group is `MCP: <name>`). */
  name: string;
  source: McpConfigSource;
  launch: McpLaunch;
}

export interface McpConfigProblem {
  /** The server's name, or undefined when the file as a whole is bad. */
  name: string | undefined;
  source: McpConfigSource;
  message: string;
}

export interface ParsedMcpConfig {
  servers: McpServerConfig[];
  problems: McpConfigProblem[];
}

/** The variables `${…}` may name; the rest are refused with a message naming them. */
export interface McpVariables {
  workspaceFolder?: string;
  userHome: string;
  env: Record<string, string | undefined>;
  pathSeparator: string;
}

/** Group names are at most 64 characters, and `MCP: ` takes 5. */
export const MAX_SERVER_NAME_CHARS = 59;
/** More servers than this in one source are refused (the rest still start). */
export const MAX_SERVERS_PER_SOURCE = 32;
/** A config file larger than this is not read. */
export const MAX_CONFIG_BYTES = 1024 * 1024;

/** No NUL: a process argument or path cannot hold one, and a header never does. */
const text = (max: number) => z.string().max(max).regex(/^[^\u0000]*$/, 'must not contain NUL characters');
const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,255}$/, 'environment variable names are letters, digits and _');
const headerName = z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/, 'header names are HTTP tokens');
const envValue = z.union([text(32_768), z.number(), z.null()]);
const stdioEntry = z.object({
  type: z.literal('stdio').optional(),
  command: text(4096).min(1),
  args: z.array(text(32_768)).max(256).optional(),
  env: z.record(envName, envValue).optional(),
  cwd: text(4096).optional(),
  envFile: z.unknown().optional(),
});
const httpEntry = z.object({
  type: z.literal('http').optional(),
  url: text(4096).min(1),
  headers: z.record(headerName, text(8192).regex(/^[^\r\n]*$/, 'must be one line')).optional(),
});

const SERVER_NAME = /^[^\u0000-\u001f\u007f]+$/;
const VARIABLE = /\$\{([^}]{0,200})\}/g;

/**
 * Parses one source's configuration object (`{ servers, inputs }`). Never throws: anything wrong
 * is a problem naming the server and the field.
 */
export function parseMcpConfig(value: unknown, source: McpConfigSource, vars: McpVariables): ParsedMcpConfig {
  const out: ParsedMcpConfig = { servers: [], problems: [] };
  if (value === undefined || value === null) return out;
  if (!isRecord(value)) return problem(out, undefined, source, 'the configuration must be a JSON object with "servers"');
  const servers = value.servers;
  if (servers === undefined) return out;
  if (!isRecord(servers)) return problem(out, undefined, source, '"servers" must be an object of named servers');
  const names = Object.keys(servers);
  if (names.length > MAX_SERVERS_PER_SOURCE) problem(out, undefined, source, `${names.length} servers configured; only the first ${MAX_SERVERS_PER_SOURCE} are read`);
  for (const name of names.slice(0, MAX_SERVERS_PER_SOURCE)) {
    const parsed = parseEntry(name, servers[name], source, vars);
    if ('message' in parsed) out.problems.push(parsed);
    else out.servers.push(parsed);
  }
  return out;
}

function parseEntry(name: string, entry: unknown, source: McpConfigSource, vars: McpVariables): McpServerConfig | McpConfigProblem {
  const fail = (message: string): McpConfigProblem => ({ name, source, message });
  if (name.length === 0 || name.length > MAX_SERVER_NAME_CHARS || !SERVER_NAME.test(name)) {
    return { name: printable(name), source, message: `the server name must be 1 to ${MAX_SERVER_NAME_CHARS} characters without control characters` };
  }
  if (!isRecord(entry)) return fail('the entry must be an object');
  const type = entry.type ?? (entry.command !== undefined ? 'stdio' : entry.url !== undefined ? 'http' : undefined);
  if (type === 'sse') return fail('type "sse" (the legacy HTTP+SSE transport) is not supported; use "http" (Streamable HTTP)');
  if (type !== 'stdio' && type !== 'http') return fail('"type" must be "stdio" or "http" (or give "command" or "url")');
  const schema = type === 'stdio' ? stdioEntry : httpEntry;
  const parsed = schema.safeParse(entry);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    if (!issue) return fail('invalid entry');
    const where = issue.path.map(String).join('.') || 'entry';
    // zod says "Invalid key in record"; the user needs to know which rule the name broke.
    if (issue.code === 'invalid_key') return fail(`${where}: not a valid ${issue.path[0] === 'env' ? 'environment variable name (letters, digits and _)' : 'header name (an HTTP token)'}`);
    return fail(`${where}: ${issue.message}`);
  }
  try {
    const resolve = (s: string, field: string) => resolveVariables(s, vars, field);
    if (type === 'stdio') {
      const e = parsed.data as z.infer<typeof stdioEntry>;
      if (e.envFile !== undefined) return fail('"envFile" is not supported; list the variables under "env"');
      const env: Record<string, string> = {};
      for (const [k, v] of Object.entries(e.env ?? {})) if (v !== null) env[k] = resolve(String(v), `env.${k}`);
      const launch: McpLaunch = { type: 'stdio', command: resolve(e.command, 'command'), args: (e.args ?? []).map((a, i) => resolve(a, `args[${i}]`)), env };
      if (e.cwd !== undefined) launch.cwd = resolve(e.cwd, 'cwd');
      else if (source.kind === 'workspace') launch.cwd = source.folderPath;
      return { name, source, launch };
    }
    const e = parsed.data as z.infer<typeof httpEntry>;
    const url = resolve(e.url, 'url');
    if (!/^https?:\/\//i.test(url) || !URL.canParse(url)) return fail('"url" must be an http:// or https:// URL');
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(e.headers ?? {})) headers[k] = resolve(v, `headers.${k}`);
    return { name, source, launch: { type: 'http', url, headers } };
  } catch (err) {
    return fail((err as Error).message);
  }
}

/** `${workspaceFolder}`, `${workspaceFolderBasename}`, `${userHome}`, `${env:NAME}`, `${pathSeparator}`, `${/}`; others throw naming the variable. */
export function resolveVariables(s: string, vars: McpVariables, field: string): string {
  return s.replace(VARIABLE, (_whole, inner: string) => {
    if (inner === 'workspaceFolder' || inner === 'workspaceFolderBasename') {
      if (vars.workspaceFolder === undefined) throw new Error(`${field}: \${${inner}} needs an open workspace folder`);
      return inner === 'workspaceFolder' ? vars.workspaceFolder : basename(vars.workspaceFolder);
    }
    if (inner === 'userHome') return vars.userHome;
    if (inner === 'pathSeparator' || inner === '/') return vars.pathSeparator;
    if (inner.startsWith('env:')) return vars.env[inner.slice(4)] ?? '';
    if (inner.startsWith('input:')) throw new Error(`${field}: \${${printable(inner)}} prompts for input, which Client Tools does not support yet; write the value in the entry or use \${env:NAME}`);
    throw new Error(`${field}: the variable \${${printable(inner)}} is not supported`);
  });
}

/**
 * The launch exactly as it will run, for the approval prompt: the command line with each argument
 * quoted where needed, the folder, every environment variable set, or the URL and every header.
 * Consent text (src/core/consent/consentText.ts): a value with a line break or an invisible character stays
 * on its own line with the character spelled out, so no argument can add a line of its own.
 */
export function describeLaunch(server: McpServerConfig): ConsentText {
  const l = server.launch;
  const lines = l.type === 'stdio'
    ? [
        consent`Command: ${[l.command, ...l.args].map(quoteArg).join(' ')}`,
        ...(l.cwd !== undefined ? [consent`In folder: ${l.cwd}`] : []),
        ...Object.entries(l.env).map(([k, v]) => consent`Environment: ${k}=${v}`),
      ]
    : [consent`URL: ${l.url}`, ...Object.entries(l.headers).map(([k, v]) => consent`Header: ${k}: ${v}`)];
  const where = server.source.kind === 'workspace' ? consent`Configured in ${server.source.file}` : consent`Configured in your user settings (mcp)`;
  return consentLines([where, ...lines]);
}

/**
 * The approval dialog for a workspace server: what will run, measured as the modal shows it.
 * PROMPT_TOO_LARGE when it does not fit in full: such a launch is not offered, never shown abridged.
 */
export function launchApproval(server: McpServerConfig): FittedConsent {
  return fitConsent({
    message: consent`Start the MCP server "${server.name}" from this workspace?`,
    detail: consentLines([
      describeLaunch(server),
      consent`Its tools become a Client Tools group the agent can use; each call still asks you first. Start it only if you trust this repository's configuration.`,
    ], '\n\n'),
  }, 'modal');
}

/**
 * The approval's key: a digest of where the server is configured and its exact resolved launch, so
 * a changed command, argument, variable, URL or header asks again.
 */
export function approvalKey(server: McpServerConfig): string {
  const where = server.source.kind === 'workspace' ? server.source.file : 'user';
  return createHash('sha256').update(JSON.stringify([where, server.name, canonical(server.launch)])).digest('hex');
}

/** Removes `//` and `/* *\/` comments and trailing commas, outside strings, in one pass (mcp.json is JSONC). */
export function stripJsonComments(source: string): string {
  let out = '';
  let i = 0;
  while (i < source.length) {
    const c = source[i];
    if (c === '"') {
      let j = i + 1;
      while (j < source.length && source[j] !== '"') j += source[j] === '\\' ? 2 : 1;
      out += source.slice(i, j + 1);
      i = j + 1;
    } else if (c === '/' && source[i + 1] === '/') {
      while (i < source.length && source[i] !== '\n') i++;
    } else if (c === '/' && source[i + 1] === '*') {
      const end = source.indexOf('*/', i + 2);
      i = end < 0 ? source.length : end + 2;
    } else if (c === ',') {
      let j = i + 1;
      while (j < source.length && /\s/.test(source[j] ?? '')) j++;
      if (source[j] !== '}' && source[j] !== ']') out += c;
      i++;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** Parses a `.vscode/mcp.json` text; a problem for the whole file when it is not JSON(C). */
export function parseMcpJsonText(textValue: string, source: McpConfigSource, vars: McpVariables): ParsedMcpConfig {
  if (Buffer.byteLength(textValue) > MAX_CONFIG_BYTES) return { servers: [], problems: [{ name: undefined, source, message: `the file is larger than ${MAX_CONFIG_BYTES} bytes` }] };
  let value: unknown;
  try {
    value = JSON.parse(stripJsonComments(textValue)) as unknown;
  } catch (e) {
    return { servers: [], problems: [{ name: undefined, source, message: `not valid JSON: ${(e as Error).message}` }] };
  }
  return parseMcpConfig(value, source, vars);
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (isRecord(value)) return Object.fromEntries(Object.keys(value).sort().map((k) => [k, canonical(value[k])]));
  return value;
}

function quoteArg(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

function basename(p: string): string {
  const parts = p.split(/[\\/]/).filter(Boolean);
  return parts[parts.length - 1] ?? p;
}

function problem(out: ParsedMcpConfig, name: string | undefined, source: McpConfigSource, message: string): ParsedMcpConfig {
  out.problems.push({ name, source, message });
  return out;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function printable(s: string): string {
  const clean = s.replace(/[\u0000-\u001f\u007f]/g, '?');
  return clean.length > 80 ? `${clean.slice(0, 80)}…` : clean;
}
