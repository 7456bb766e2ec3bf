import * as assert from 'node:assert/strict';
import {
  approvalKey,
  describeLaunch,
  MAX_SERVERS_PER_SOURCE,
  parseMcpConfig,
  parseMcpJsonText,
  type McpConfigSource,
  type McpVariables,
} from '../../../../src/tools/mcpClient/config';

const folder: McpConfigSource = { kind: 'workspace', folderName: 'proj', folderPath: '/w/proj', file: '/w/proj/.vscode/mcp.json' };
const vars: McpVariables = { workspaceFolder: '/w/proj', userHome: '/home/u', env: { TOKEN: 'secret-1' }, pathSeparator: '/' };

describe('MCP servers: configuration', () => {
  it('reads stdio and http servers, with the type implied by command or url', () => {
    const parsed = parseMcpConfig({
      servers: {
        files: { type: 'stdio', command: 'npx', args: ['-y', 'server', '${workspaceFolder}/src'], env: { A: '1', N: 2, GONE: null }, cwd: '${workspaceFolder}' },
        web: { url: 'https://example.test/mcp', headers: { Authorization: 'Bearer ${env:TOKEN}' } },
        implied: { command: 'node' },
      },
      inputs: [],
    }, folder, vars);
    assert.deepEqual(parsed.problems, []);
    assert.deepEqual(parsed.servers.map((s) => s.launch), [
      { type: 'stdio', command: 'npx', args: ['-y', 'server', '/w/proj/src'], env: { A: '1', N: '2' }, cwd: '/w/proj' },
      { type: 'http', url: 'https://example.test/mcp', headers: { Authorization: 'Bearer secret-1' } },
      // A workspace server without cwd runs in its folder.
      { type: 'stdio', command: 'node', args: [], env: {}, cwd: '/w/proj' },
    ]);
  });

  it('reports each bad entry by name and keeps the good ones', () => {
    const parsed = parseMcpConfig({
      servers: {
        good: { command: 'node', args: ['a.js'] },
        noType: { args: ['x'] },
        badArgs: { command: 'node', args: 'a.js' },
        sse: { type: 'sse', url: 'http://127.0.0.1:1/sse' },
        ftp: { type: 'http', url: 'ftp://example.test/' },
        prompt: { command: 'node', env: { KEY: '${input:apiKey}' } },
        cmdVar: { command: '${command:pick}' },
        envFile: { command: 'node', envFile: '${workspaceFolder}/.env' },
        nul: { command: 'node\u0000evil' },
        proto: { command: 'node', env: { __proto__x: '1', 'BAD-NAME': '1' } },
        crlf: { url: 'http://127.0.0.1:1/', headers: { X: 'a\r\nInjected: 1' } },
        notObject: 42,
      },
    }, folder, vars);
    assert.deepEqual(parsed.servers.map((s) => s.name), ['good']);
    const byName = Object.fromEntries(parsed.problems.map((p) => [p.name, p.message]));
    assert.match(byName.noType ?? '', /"type" must be "stdio" or "http"/);
    assert.match(byName.badArgs ?? '', /^args: /);
    assert.match(byName.sse ?? '', /"sse".*not supported/);
    assert.match(byName.ftp ?? '', /http:\/\/ or https:\/\//);
    assert.match(byName.prompt ?? '', /env\.KEY: \$\{input:apiKey\} prompts for input, which Client Tools does not support yet/);
    assert.match(byName.cmdVar ?? '', /\$\{command:pick\} is not supported/);
    assert.match(byName.envFile ?? '', /"envFile" is not supported/);
    assert.match(byName.nul ?? '', /NUL/);
    assert.match(byName.proto ?? '', /env\.BAD-NAME: not a valid environment variable name/);
    assert.match(byName.crlf ?? '', /one line/);
    assert.match(byName.notObject ?? '', /must be an object/);
  });

  it('refuses hostile names and caps the number of servers', () => {
    const servers: Record<string, unknown> = { 'a\u001b[31mred': { command: 'x' }, ['n'.repeat(60)]: { command: 'x' } };
    for (let i = 0; i < MAX_SERVERS_PER_SOURCE + 5; i++) servers[`s${i}`] = { command: 'node' };
    const parsed = parseMcpConfig({ servers }, folder, vars);
    assert.equal(parsed.servers.length, MAX_SERVERS_PER_SOURCE - 2);
    assert.ok(parsed.problems.some((p) => p.name === undefined && /only the first 32/.test(p.message)));
    const bad = parsed.problems.filter((p) => p.name !== undefined);
    assert.equal(bad.length, 2);
    for (const p of bad) assert.match(p.message, /server name must be/);
    assert.ok(!bad.some((p) => p.name?.includes('\u001b')), 'a control character never reaches the message');
  });

  it('needs a workspace folder for ${workspaceFolder} in the user configuration', () => {
    const parsed = parseMcpConfig({ servers: { a: { command: 'node', args: ['${workspaceFolder}/x.js'] } } }, { kind: 'user' }, { ...vars, workspaceFolder: undefined });
    assert.match(parsed.problems[0]?.message ?? '', /args\[0\]: \$\{workspaceFolder\} needs an open workspace folder/);
  });

  it('reads mcp.json as JSON with comments and trailing commas, and reports a broken file as a whole', () => {
    const ok = parseMcpJsonText('{\n // a comment\n "servers": { /* inline */ "a": { "command": "node", "args": ["//not a comment", "x,"], }, },\n}', folder, vars);
    assert.deepEqual(ok.problems, []);
    assert.deepEqual(ok.servers[0]?.launch, { type: 'stdio', command: 'node', args: ['//not a comment', 'x,'], env: {}, cwd: '/w/proj' });
    const broken = parseMcpJsonText('{ "servers": ', folder, vars);
    assert.equal(broken.servers.length, 0);
    assert.match(broken.problems[0]?.message ?? '', /^not valid JSON/);
    assert.deepEqual(parseMcpJsonText('[1]', folder, vars).problems.map((p) => p.message), ['the configuration must be a JSON object with "servers"']);
  });

  it('describes the launch exactly as it will run, quoting arguments', () => {
    const [server] = parseMcpConfig({ servers: { a: { command: 'node', args: ['x.js', 'two words', "it's"], env: { NODE_OPTIONS: '--require ./evil.js' } } } }, folder, vars).servers;
    assert.ok(server);
    assert.equal(describeLaunch(server), [
      'Configured in /w/proj/.vscode/mcp.json',
      "Command: node x.js 'two words' 'it'\\''s'",
      'In folder: /w/proj',
      'Environment: NODE_OPTIONS=--require ./evil.js',
    ].join('\n'));
  });

  it('keys an approval by the exact launch: any change asks again, key order does not', () => {
    const key = (entry: unknown, v: McpVariables = vars) => {
      const s = parseMcpConfig({ servers: { a: entry } }, folder, v).servers[0];
      assert.ok(s);
      return approvalKey(s);
    };
    const base = key({ command: 'node', args: ['x.js'], env: { A: '1', B: '2' } });
    assert.equal(key({ env: { B: '2', A: '1' }, args: ['x.js'], command: 'node' }), base);
    assert.notEqual(key({ command: 'node', args: ['y.js'], env: { A: '1', B: '2' } }), base);
    assert.notEqual(key({ command: 'nodejs', args: ['x.js'], env: { A: '1', B: '2' } }), base);
    assert.notEqual(key({ command: 'node', args: ['x.js'], env: { A: '1', B: '3' } }), base);
    // A variable that resolves differently is a different launch.
    assert.notEqual(key({ command: 'node', args: ['${env:TOKEN}'] }), key({ command: 'node', args: ['${env:TOKEN}'] }, { ...vars, env: { TOKEN: 'other' } }));
    // The same entry in another folder's file is another approval.
    const s = parseMcpConfig({ servers: { a: { command: 'node', args: ['x.js'], env: { A: '1', B: '2' }, cwd: '/w/proj' } } }, { ...folder, file: '/w/other/.vscode/mcp.json' }, vars).servers[0];
    assert.ok(s);
    assert.notEqual(approvalKey(s), base);
  });
});
