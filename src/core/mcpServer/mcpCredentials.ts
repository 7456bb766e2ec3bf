/**
 * Named credentials for the editor's MCP server besides the window's own token: one per agent the
 * user starts outside the editor (Claude Code from a terminal, Gemini CLI), so its configuration
 * holds a token that survives restarts and can be revoked on its own. The VS Code side keeps them in
 * secret storage (src/vscode/mcpServer/mcpCredentialStore.ts); here only their digests are held, a
 * presented token is compared with each in constant time, and a call is named after the credential
 * it came with (the user's name for it), not the name the client claims.
 */
import { secretDigest, secretMatches } from '../../base/localRequest';
import { Emitter, type Event } from '../../base/events';

export interface McpCredential {
  /** The user's name for the agent that holds it (shown on its cards and prompts as `MCP: <name>`). */
  name: string;
  token: string;
}

/** Credentials one server accepts at most. */
export const MAX_MCP_CREDENTIALS = 32;

export class McpCredentialSet {
  private entries: { name: string; digest: Buffer }[] = [];
  private readonly changed = new Emitter<void>();
  /** Fires after `set`: sessions of a credential no longer there end. */
  readonly onDidChange: Event<void> = this.changed.event;

  set(credentials: readonly McpCredential[]): void {
    this.entries = credentials.slice(0, MAX_MCP_CREDENTIALS).map((c) => ({ name: c.name, digest: secretDigest(c.token) }));
    this.changed.fire();
  }

  /** The name of the credential `presented` is, or undefined (every entry compared, in constant time each). */
  match(presented: string): string | undefined {
    let found: string | undefined;
    for (const entry of this.entries) if (secretMatches(presented, entry.digest) && found === undefined) found = entry.name;
    return found;
  }

  has(name: string): boolean {
    return this.entries.some((e) => e.name === name);
  }

  dispose(): void {
    this.changed.dispose();
  }
}
