/**
 * The named tokens a backend accepts, kept in step with the tokens file: every handshake stats the
 * file (one system call) and re-reads it when its inode, size or times changed, so adding or removing
 * a token takes effect at the next connection without a signal or a restart. A file that became
 * unusable (bad line, loose permissions, gone) fails closed: no named token is accepted until it is
 * fixed, rather than keeping users an operator just removed.
 */
import { promises as fs } from 'node:fs';
import type { Logger } from '../log';
import { findUser, indexTokens, type TokenEntry, type TokenIndex } from './tokenHash';
import { readTokensFile } from './tokensFile';

type Loaded = { ok: true; index: TokenIndex; held: ReadonlySet<string> } | { ok: false; reason: string };

export class NamedTokens {
  private stamp: string;
  private loaded: Loaded;
  private reloading: Promise<void> | undefined;

  private constructor(
    readonly file: string,
    private readonly log: Logger,
    stamp: string,
    entries: TokenEntry[],
  ) {
    this.stamp = stamp;
    this.loaded = loaded(entries);
  }

  /** Reads the file once; a missing or bad file is a startup error with a clear message. */
  static async open(file: string, log: Logger): Promise<NamedTokens> {
    const stamp = await stampOf(file);
    const entries = await readTokensFile(file);
    log.info(`tokens file: ${entries.length} named token(s) for ${new Set(entries.map((e) => e.user)).size} user(s)`);
    return new NamedTokens(file, log, stamp ?? '', entries);
  }

  /** The user of `token`, undefined when none matches; 'unusable' when the file is broken now. */
  async userOf(token: string): Promise<string | undefined | 'unusable'> {
    await this.refresh();
    if (!this.loaded.ok) return 'unusable';
    return findUser(this.loaded.index, token);
  }

  /**
   * Whether the file (re-read when it changed) still gives `user` the token whose SHA-256 is
   * `sha256`; 'unusable' while the file is broken. A digest, not a secret: a plain set lookup.
   */
  async holds(user: string, sha256: string): Promise<boolean | 'unusable'> {
    await this.refresh();
    if (!this.loaded.ok) return 'unusable';
    return this.loaded.held.has(`${user} ${sha256}`);
  }

  private async refresh(): Promise<void> {
    const stamp = (await stampOf(this.file)) ?? 'missing';
    if (stamp === this.stamp) return;
    // Handshakes that arrive during a reload wait for the same one.
    this.reloading ??= this.reload(stamp).finally(() => (this.reloading = undefined));
    await this.reloading;
  }

  private async reload(stamp: string): Promise<void> {
    try {
      const entries = await readTokensFile(this.file);
      this.loaded = loaded(entries);
      this.log.info(`tokens file changed: ${entries.length} named token(s) now`);
    } catch (e) {
      const reason = e instanceof Error ? e.message : String(e);
      this.loaded = { ok: false, reason };
      this.log.error(`tokens file unusable, refusing every named token until it is fixed: ${reason}`);
    }
    this.stamp = stamp;
  }
}

function loaded(entries: readonly TokenEntry[]): Loaded {
  return { ok: true, index: indexTokens(entries), held: new Set(entries.map((e) => `${e.user} ${e.sha256}`)) };
}

/** What identifies one version of the file; undefined when it does not exist. */
async function stampOf(file: string): Promise<string | undefined> {
  try {
    const st = await fs.lstat(file, { bigint: true });
    return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}:${st.mode}`;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}
