// An MCP server (stdio, newline-delimited JSON-RPC) that floods its client when a tool is called:
// first a notification of 24 MiB written in 16 KiB pieces, then one whose params have 100,000
// members, then the tool's result. Its tool `picture` answers with a 6 MiB image result (its id last,
// as the TypeScript SDK writes it; `picture-id-first`: first, as others do), in 16 KiB pieces. Used by
// test/adversarial/untrusted-data.test.ts.
import * as readline from 'node:readline';

const write = (m) => process.stdout.write(`${JSON.stringify(m)}\n`);

function flood() {
  const line = `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'a'.repeat(24 * 1024 * 1024) } })}\n`;
  for (let i = 0; i < line.length; i += 16 * 1024) process.stdout.write(line.slice(i, i + 16 * 1024));
  const members = {};
  for (let i = 0; i < 100_000; i++) members[`k${i}`] = 0;
  write({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: members } });
}

function picture(answer) {
  const line = `${JSON.stringify(answer({ content: [{ type: 'image', mimeType: 'image/png', data: Buffer.alloc(4.5 * 1024 * 1024, 7).toString('base64') }] }))}\n`;
  for (let i = 0; i < line.length; i += 16 * 1024) process.stdout.write(line.slice(i, i + 16 * 1024));
}

readline.createInterface({ input: process.stdin }).on('line', (text) => {
  const m = JSON.parse(text);
  if (m.method === 'initialize') write({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'flooding', version: '1' } } });
  else if (m.method === 'tools/list') write({ jsonrpc: '2.0', id: m.id, result: { tools: ['echo', 'picture', 'picture-id-first'].map((name) => ({ name, inputSchema: { type: 'object' } })) } });
  else if (m.method === 'tools/call' && m.params.name === 'picture') picture((result) => ({ result, jsonrpc: '2.0', id: m.id }));
  else if (m.method === 'tools/call' && m.params.name === 'picture-id-first') picture((result) => ({ jsonrpc: '2.0', id: m.id, result }));
  else if (m.method === 'tools/call') {
    flood();
    write({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'after the flood' }] } });
  } else if (m.id !== undefined) write({ jsonrpc: '2.0', id: m.id, result: {} });
});
