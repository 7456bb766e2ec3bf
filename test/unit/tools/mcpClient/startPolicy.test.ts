import * as assert from 'node:assert/strict';
import { approvalKey, parseMcpConfig, type McpServerConfig } from '../../../../src/tools/mcpClient/config';
import { startDecision } from '../../../../src/tools/mcpClient/startPolicy';

const vars = { workspaceFolder: '/w/proj', userHome: '/home/u', env: {}, pathSeparator: '/' };

function server(kind: 'user' | 'workspace', entry: unknown = { command: 'node', args: ['s.js'] }): McpServerConfig {
  const source = kind === 'user' ? { kind } : { kind, folderName: 'proj', folderPath: '/w/proj', file: '/w/proj/.vscode/mcp.json' };
  const s = parseMcpConfig({ servers: { s: entry } }, source, vars).servers[0];
  assert.ok(s);
  return s;
}

describe('MCP servers: which servers may start', () => {
  const none = { workspaceTrusted: true, approved: false, declinedInThisWindow: false };

  it('a server from the user settings starts, trusted workspace or not', () => {
    assert.deepEqual(startDecision(server('user'), none), { kind: 'start' });
    assert.deepEqual(startDecision(server('user'), { ...none, workspaceTrusted: false }), { kind: 'start' });
  });

  it('a workspace server waits in an untrusted workspace, even when approved before', () => {
    const d = startDecision(server('workspace'), { workspaceTrusted: false, approved: true, declinedInThisWindow: false });
    assert.equal(d.kind, 'wait');
    assert.ok(d.kind === 'wait' && d.status === 'needs a trusted workspace');
  });

  it('a trusted workspace server is asked about once: asked, then started when approved, then waits when declined', () => {
    assert.deepEqual(startDecision(server('workspace'), none), { kind: 'ask' });
    assert.deepEqual(startDecision(server('workspace'), { ...none, approved: true }), { kind: 'start' });
    const d = startDecision(server('workspace'), { ...none, declinedInThisWindow: true });
    assert.ok(d.kind === 'wait' && d.status === 'not approved' && /Restart MCP Servers/.test(d.detail));
  });

  it('the approval the bridge looks up is for the exact launch: a changed command is a new key, so it is asked again', () => {
    const approved = new Set([approvalKey(server('workspace'))]);
    const facts = (s: McpServerConfig) => ({ ...none, approved: approved.has(approvalKey(s)) });
    assert.deepEqual(startDecision(server('workspace'), facts(server('workspace'))), { kind: 'start' });
    const changed = server('workspace', { command: 'node', args: ['s.js', '--evil'] });
    assert.deepEqual(startDecision(changed, facts(changed)), { kind: 'ask' });
  });
});
