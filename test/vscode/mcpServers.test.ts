/**
 * The user's MCP servers inside a real VS Code, with the real reference server
 * `@modelcontextprotocol/server-everything` (stdio) and a scripted backend: a server in the user's
 * `mcp` setting becomes the collapsed group `MCP: everything` (user servers need no approval), its
 * image tool returns the image through the dispatcher, its tools ask before running, and a
 * workspace `.vscode/mcp.json` with bad entries shows each one as an error in the Tool Groups view
 * while the others keep working.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ClientToolsApi } from '../../src/vscode/context';
import type { ScriptedBackend } from '../support/scripted-backend';
import { EXTENSION_ID, until, useScriptedConnection } from './support/scriptedConnection';

const IMAGE_TOOL = 'mcp_everything_get-tiny-image';
const ECHO_TOOL = 'mcp_everything_echo';

describe('MCP servers as client tool groups', function () {
  this.timeout(90_000);
  const connection = useScriptedConnection('mcp-servers-token');
  let api: ClientToolsApi;
  let backend: ScriptedBackend;
  let workspace: string;
  const mcp = () => vscode.workspace.getConfiguration('mcp');

  before(async () => {
    ({ api, backend, workspace } = connection());
    const extensionPath = vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath;
    const everything = path.join(extensionPath, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
    await mcp().update('servers', { everything: { type: 'stdio', command: process.execPath, args: [everything, 'stdio'] } }, vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    await vscode.commands.executeCommand('clientTools.askTool', { kind: 'tool', group: 'MCP: everything', name: IMAGE_TOOL });
    await mcp().update('servers', undefined, vscode.ConfigurationTarget.Global);
    fs.rmSync(path.join(workspace, '.vscode', 'mcp.json'), { force: true });
  });

  const group = () => api.toolGroups().find((g) => g.name === 'MCP: everything');
  const offered = (tool: string) => backend.received.some((m) => m.type === 'updateToolGroups' && JSON.stringify(m).includes(`"name":"${tool}"`));

  it('a server in the user settings becomes the collapsed group MCP: everything, and the backend is offered its tools', async () => {
    const shown = await until('the group in the Tool Groups view', () => group()?.tools.length ? group() : undefined, 30_000);
    const image = shown.tools.find((t) => t.name === IMAGE_TOOL);
    assert.ok(image, shown.tools.map((t) => t.name).join(', '));
    assert.equal(image.permission, true, 'an MCP tool asks before it runs');
    // The server's hints (echo: readOnlyHint, openWorldHint false) are the tool's classification in the view; it still asks.
    const echo = shown.tools.find((t) => t.name === ECHO_TOOL);
    assert.deepEqual([echo?.classification, echo?.permission, echo?.policy], ['read-only, stays within the editor', true, 'ask']);
    await until('the backend told of the group', () => offered(IMAGE_TOOL));
    const update = backend.received.filter((m) => m.type === 'updateToolGroups').map((m) => JSON.stringify(m)).reverse().find((s) => s.includes(IMAGE_TOOL)) ?? '';
    assert.match(update, /"name":"MCP: everything"/);
    assert.doesNotMatch(update, /"startCollapsed":false/);
  });

  it('asks before an MCP tool runs; with Allow in the Tool Groups view the image comes back as binary content', async () => {
    const id = backend.invoke(ECHO_TOOL, { message: 'hi' });
    await backend.waitForProgress(id, 'awaiting-permission', 15_000);
    backend.send({ type: 'clientToolCancel', requestId: id, reason: 'test' });
    assert.equal((await backend.first('clientToolInvokeResponse', (m) => m.requestId === id)).errorCode, 'CANCELLED');

    await vscode.commands.executeCommand('clientTools.allowTool', { kind: 'tool', group: 'MCP: everything', name: IMAGE_TOOL });
    const imageId = backend.invoke(IMAGE_TOOL, {});
    const response = await backend.first('clientToolInvokeResponse', (m) => m.requestId === imageId, 20_000);
    assert.equal(response.success, true, `${response.errorCode}: ${response.errorMessage}`);
    const binary = response.content.find((c) => c.type === 'binary');
    assert.ok(binary && binary.type === 'binary', JSON.stringify(response.content).slice(0, 300));
    assert.equal(binary.mimeType, 'image/png');
    assert.deepEqual([...binary.bytes.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
    assert.ok(response.content.some((c) => c.type === 'text' && c.text.includes('MCP logo')));
  });

  it('bad entries in .vscode/mcp.json show as errors in the Tool Groups view, and the good server keeps running', async () => {
    fs.mkdirSync(path.join(workspace, '.vscode'), { recursive: true });
    fs.writeFileSync(path.join(workspace, '.vscode', 'mcp.json'), JSON.stringify({
      servers: {
        prompted: { command: 'node', env: { KEY: '${input:apiKey}' } },
        broken: { type: 'stdio', args: 'not an array' },
      },
    }));
    await until('both errors shown', () => {
      const names = api.toolGroups().map((g) => `${g.name} | ${g.status}`);
      return names.some((n) => n.startsWith('MCP: prompted | configuration error') && n.includes('does not support yet')) && names.some((n) => n.startsWith('MCP: broken | configuration error'));
    }, 20_000);
    assert.ok(group()?.tools.some((t) => t.name === IMAGE_TOOL), 'the user server is still a group');
  });

  it('a server that cannot start shows in the Tool Groups view as restarting, with the reason', async () => {
    await mcp().update('servers', {
      everything: mcp().inspect<Record<string, unknown>>('servers')?.globalValue?.everything,
      missing: { type: 'stdio', command: '/nonexistent/mcp-server-binary' },
    }, vscode.ConfigurationTarget.Global);
    await until('the failing server shown with its reason', () => api.toolGroups().find((g) => g.name === 'MCP: missing' && /^restarting in \d+ s: could not start: .*ENOENT/.test(g.status)), 20_000);
    assert.ok(group()?.tools.some((t) => t.name === IMAGE_TOOL), 'the working server is still a group');
  });

  it('removing the server from the settings stops it: the group goes and the backend is no longer offered its tools', async () => {
    const updatesBefore = backend.received.filter((m) => m.type === 'updateToolGroups').length;
    await mcp().update('servers', undefined, vscode.ConfigurationTarget.Global);
    await until('the MCP group gone', () => !api.toolGroups().some((g) => g.name === 'MCP: everything'), 20_000);
    await until('an update without the MCP tools', () => backend.received.filter((m) => m.type === 'updateToolGroups').slice(updatesBefore).some((m) => !JSON.stringify(m).includes(IMAGE_TOOL)));
    const id = backend.invoke(IMAGE_TOOL, {});
    assert.equal((await backend.first('clientToolInvokeResponse', (m) => m.requestId === id)).errorCode, 'UNKNOWN_TOOL');
  });
});
