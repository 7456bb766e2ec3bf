import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { writeMcpLockFile, type McpLockInfo } from '../../../../src/vscode/mcpServer/mcpLockFile';
import { mcpSnippet } from '../../../../src/vscode/mcpServer/mcpSnippets';

describe('MCP lock file and configuration snippets', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-lock-')));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const info = (port: number): McpLockInfo => ({ port, pid: process.pid, url: `http://127.0.0.1:${port}/mcp`, transport: 'streamable-http', token: 'a'.repeat(64), workspaceFolders: ['/w'], ideName: 'Test' });

  it('writes <port>.lock 0600 in a 0700 folder with port, token, pid and workspace folders, and removes it', () => {
    const folder = path.join(dir, 'mcp');
    const lock = writeMcpLockFile(folder, info(4242));
    assert.equal(lock.file, path.join(folder, '4242.lock'));
    assert.equal(fs.statSync(lock.file).mode & 0o777, 0o600);
    assert.equal(fs.statSync(folder).mode & 0o777, 0o700);
    assert.deepEqual(JSON.parse(fs.readFileSync(lock.file, 'utf8')), info(4242));
    lock.remove();
    assert.equal(fs.existsSync(lock.file), false);
  });

  it('refuses a folder others may write and never follows a link planted at the path', () => {
    fs.chmodSync(dir, 0o777);
    assert.throws(() => writeMcpLockFile(dir, info(1)), /MCP lock file folder .* may be written by every user/);
    fs.chmodSync(dir, 0o700);
    fs.symlinkSync(path.join(dir, 'elsewhere'), path.join(dir, '2.lock'));
    assert.throws(() => writeMcpLockFile(dir, info(2)), /symbolic link/);
    assert.equal(fs.existsSync(path.join(dir, 'elsewhere')), false);
  });

  it('gives each client a snippet with the URL and the bearer header', () => {
    const url = 'http://127.0.0.1:5/mcp';
    assert.equal(mcpSnippet('claudeCode', url, 't0k'), 'claude mcp add --transport http client-tools http://127.0.0.1:5/mcp --header "Authorization: Bearer t0k"');
    assert.deepEqual(JSON.parse(mcpSnippet('mcpJson', url, 't0k')), { mcpServers: { 'client-tools': { type: 'http', url, headers: { Authorization: 'Bearer t0k' } } } });
    assert.deepEqual(JSON.parse(mcpSnippet('geminiCli', url, 't0k')), { mcpServers: { 'client-tools': { httpUrl: url, headers: { Authorization: 'Bearer t0k' } } } });
  });
});
