/**
 * The named MCP credentials kept in secret storage (VS Code's SecretStorage: the OS keychain), one
 * per agent the user starts outside the editor: created (or replaced, which revokes the old token)
 * and revoked by name, read at each start of the window's MCP server. One secret holds them all, as
 * JSON; a value that does not read as that is treated as none. Plain Node (the secret storage is
 * passed in), so tests use a map.
 */
import { CodedError, ErrorCode } from '../../protocol';
import { MAX_MCP_CREDENTIALS, type McpCredential } from '../../core/mcpServer/mcpCredentials';
import { newMcpToken } from '../../core/mcpServer/mcpToken';

/** What the store needs of VS Code's SecretStorage. */
export interface SecretStore {
  get(key: string): PromiseLike<string | undefined>;
  store(key: string, value: string): PromiseLike<void>;
  delete(key: string): PromiseLike<void>;
}

export const MCP_CREDENTIALS_SECRET = 'clientTools.mcpCredentials';
const MAX_NAME_CHARS = 64;

export class McpCredentialStore {
  constructor(private readonly secrets: SecretStore) {}

  async list(): Promise<McpCredential[]> {
    let parsed: unknown;
    try {
      parsed = JSON.parse((await this.secrets.get(MCP_CREDENTIALS_SECRET)) ?? '[]');
    } catch {
      return [];
    }
    if (!Array.isArray(parsed)) return [];
    return parsed
      .filter((c): c is McpCredential => typeof c === 'object' && c !== null && typeof c.name === 'string' && typeof c.token === 'string' && /^[0-9a-f]{64}$/.test(c.token))
      .slice(0, MAX_MCP_CREDENTIALS)
      .map((c) => ({ name: c.name, token: c.token }));
  }

  /** A new credential for `name`; one that name had is replaced (its token stops working). */
  async create(name: string): Promise<McpCredential> {
    const clean = credentialName(name);
    const others = (await this.list()).filter((c) => c.name !== clean);
    if (others.length >= MAX_MCP_CREDENTIALS) throw new CodedError(ErrorCode.LimitExceeded, `at most ${MAX_MCP_CREDENTIALS} MCP credentials; revoke one first`);
    const credential = { name: clean, token: newMcpToken() };
    await this.save([...others, credential]);
    return credential;
  }

  /** Returns whether there was one by that name. */
  async revoke(name: string): Promise<boolean> {
    const all = await this.list();
    const kept = all.filter((c) => c.name !== name);
    if (kept.length === all.length) return false;
    await this.save(kept);
    return true;
  }

  private async save(credentials: readonly McpCredential[]): Promise<void> {
    if (credentials.length === 0) await this.secrets.delete(MCP_CREDENTIALS_SECRET);
    else await this.secrets.store(MCP_CREDENTIALS_SECRET, JSON.stringify(credentials));
  }
}

/** A name the user gave: one line of letters, digits, spaces and `._@()+-`, at most 64 characters. */
export function credentialName(name: string): string {
  const clean = name.normalize('NFKC').replace(/\s+/g, ' ').trim();
  if (clean === '' || clean.length > MAX_NAME_CHARS || !/^[\p{L}\p{N} ._@()+-]+$/u.test(clean)) {
    throw new CodedError(ErrorCode.InvalidArguments, `an MCP credential's name is 1 to ${MAX_NAME_CHARS} letters, digits, spaces or . _ @ ( ) + -`);
  }
  return clean;
}
