import assert from 'node:assert/strict';
import type { AgentToolCall } from '../../../src/agents/agentCallbacks';
import { newAgentMcpName } from '../../../src/agents/agentMcp';
import { editorToolRequestOf } from '../../../src/agents/editorToolRequest';

const SERVER = 'clienttools-abcd2345';
const call = (c: Partial<AgentToolCall>): AgentToolCall => ({ toolCallId: 'toolu_1', title: '', kind: 'other', content: [], locations: [], ...c });

describe('editorToolRequestOf: a permission request for a tool of the session\'s editor MCP server', () => {
  it('Claude Code: kind other, title exactly mcp__<server>__<tool>', () => {
    assert.deepEqual(editorToolRequestOf(call({ title: `mcp__${SERVER}__ReadFile`, rawInput: { path: 'a' } }), SERVER), { tool: 'ReadFile' });
    assert.equal(editorToolRequestOf(call({ title: `mcp__${SERVER}__Echo; rm -rf ~` }), SERVER), undefined, 'not a tool name');
    assert.equal(editorToolRequestOf(call({ title: `mcp__${SERVER}__Echo`, kind: 'execute' }), SERVER), undefined, 'a command titled as the tool');
    assert.equal(editorToolRequestOf(call({ title: 'mcp__clienttools__Echo' }), SERVER), undefined, 'another server (one a repository configured)');
    assert.equal(editorToolRequestOf(call({ title: `mcp__${SERVER}x__Echo` }), SERVER), undefined);
  });

  it('Gemini CLI: kind other, title <tool> (<server> MCP Server) and a call id built from the tool\'s name', () => {
    const id = `mcp_${SERVER}_Echo__mcp_${SERVER}_Echo_1795782703663_0`;
    assert.deepEqual(editorToolRequestOf(call({ toolCallId: id, title: `Echo (${SERVER} MCP Server)` }), SERVER), { tool: 'Echo' });
    assert.equal(editorToolRequestOf(call({ toolCallId: 'update_topic_1', title: `Echo (${SERVER} MCP Server)` }), SERVER), undefined, 'a description dressed as the tool');
    assert.equal(editorToolRequestOf(call({ toolCallId: id, title: `Echo (${SERVER} MCP Server)`, kind: 'execute' }), SERVER), undefined);
    assert.equal(editorToolRequestOf(call({ toolCallId: 'mcp_clienttools_Echo__1', title: 'Echo (clienttools MCP Server)' }), SERVER), undefined);
  });

  it('Codex: an MCP tool approval naming the server', () => {
    const raw = (server: string, kind = 'mcp_tool_call') => ({ server_name: server, request: { mode: 'form', message: 'Allow the x MCP server to run tool "Guarded"?', _meta: { codex_approval_kind: kind } } });
    assert.deepEqual(editorToolRequestOf(call({ title: 'Approve MCP tool call', rawInput: raw(SERVER) }), SERVER), { tool: 'Guarded' });
    assert.equal(editorToolRequestOf(call({ title: 'Approve MCP tool call', rawInput: raw('clienttools') }), SERVER), undefined);
    assert.equal(editorToolRequestOf(call({ title: 'Approve MCP tool call', rawInput: raw(SERVER, 'exec') }), SERVER), undefined);
    assert.equal(editorToolRequestOf(call({ title: 'Run', kind: 'execute', rawInput: { ...raw(SERVER), command: 'rm -rf ~' } }), SERVER), undefined, 'a command is never an MCP approval');
  });

  it('each session\'s server has a name of its own that no configuration can know', () => {
    const names = new Set(Array.from({ length: 50 }, () => newAgentMcpName()));
    assert.equal(names.size, 50);
    for (const name of names) assert.match(name, /^clienttools-[a-z2-7]{8}$/);
  });
});
