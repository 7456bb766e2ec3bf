// The MCP server process the bridged client under test starts (hosts/mcpBridgeHost.ts): a pipe
// between its stdio and the fuzzer's TCP port, so the fuzzer speaks newline-delimited JSON-RPC to
// the real stdio transport, hostile lines included.   argv: <port>
import * as net from 'node:net';

const socket = net.connect(Number(process.argv[2]), '127.0.0.1');
process.stdin.pipe(socket);
socket.pipe(process.stdout);
socket.on('close', () => process.exit(0));
socket.on('error', () => process.exit(1));
process.stdin.on('end', () => socket.end());
