import assert from 'node:assert/strict';
import { MAX_MCP_CREDENTIALS } from '../../../src/core/mcpServer/mcpCredentials';
import { CodedError } from '../../../src/protocol';
import { MCP_CREDENTIALS_SECRET, McpCredentialStore, credentialName, type SecretStore } from '../../../src/vscode/mcpServer/mcpCredentialStore';

function memorySecrets(): SecretStore & { values: Map<string, string> } {
  const values = new Map<string, string>();
  return {
    values,
    get: async (key) => values.get(key),
    store: async (key, value) => void values.set(key, value),
    delete: async (key) => void values.delete(key),
  };
}

describe('MCP credentials in secret storage (mcpCredentialStore.ts)', () => {
  it('one per agent: created, listed, replaced (the old token stops), revoked; all in one secret', async () => {
    const secrets = memorySecrets();
    const store = new McpCredentialStore(secrets);
    assert.deepEqual(await store.list(), []);
    const claude = await store.create(' Claude  Code ');
    assert.equal(claude.name, 'Claude Code');
    assert.match(claude.token, /^[0-9a-f]{64}$/);
    const gemini = await store.create('Gemini CLI');
    assert.deepEqual(await store.list(), [claude, gemini]);
    const again = await store.create('Claude Code');
    assert.notEqual(again.token, claude.token);
    assert.deepEqual((await store.list()).map((c) => c.token).sort(), [again.token, gemini.token].sort());
    assert.equal(await store.revoke('Claude Code'), true);
    assert.equal(await store.revoke('Claude Code'), false);
    assert.deepEqual(await store.list(), [gemini]);
    assert.deepEqual([...secrets.values.keys()], [MCP_CREDENTIALS_SECRET]);
    await store.revoke('Gemini CLI');
    assert.equal(secrets.values.size, 0, 'no secret left once none is');
  });

  it('a stored value that is not a list of credentials reads as none, and a bad entry is left out', async () => {
    const secrets = memorySecrets();
    const store = new McpCredentialStore(secrets);
    secrets.values.set(MCP_CREDENTIALS_SECRET, '{not json');
    assert.deepEqual(await store.list(), []);
    secrets.values.set(MCP_CREDENTIALS_SECRET, JSON.stringify([{ name: 'ok', token: 'a'.repeat(64) }, { name: 'short', token: 'abc' }, { name: 1, token: 'b'.repeat(64) }, null]));
    assert.deepEqual(await store.list(), [{ name: 'ok', token: 'a'.repeat(64) }]);
  });

  it('names are one plain line of at most 64 characters; at most 32 credentials', async () => {
    assert.equal(credentialName('two\nlines'), 'two lines');
    for (const bad of ['', '   ', 'a'.repeat(65), '<b>x</b>', 'rtl\u202Eoverride', 'tab\u0000nul']) {
      assert.throws(() => credentialName(bad), (e: unknown) => e instanceof CodedError && e.code === 'INVALID_ARGUMENTS', JSON.stringify(bad));
    }
    const store = new McpCredentialStore(memorySecrets());
    for (let i = 0; i < MAX_MCP_CREDENTIALS; i++) await store.create(`agent ${i}`);
    await assert.rejects(store.create('one more'), (e: unknown) => e instanceof CodedError && e.code === 'LIMIT_EXCEEDED');
    await store.create('agent 0');
    assert.equal((await store.list()).length, MAX_MCP_CREDENTIALS, 'replacing one is not one more');
  });
});
