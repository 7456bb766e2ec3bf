/**
 * Per-thread writer leases in the data folder, so that two backend processes sharing it (the bundled
 * backends of two VS Code windows, two CLIs given one --data-dir) never write one thread at once.
 * A lease is a file `leases/<key>.lease` in the data folder, created exclusively (0600, no link
 * followed) with the holder's pid and a random nonce, its time renewed while it is held, removed
 * on release. Another process's lease counts while its pid is alive and its time is fresh; a lease
 * whose holder died (or stopped renewing for EXPIRE_MS) is broken by renaming it aside and
 * checking that the file moved is the one found stale, so two processes breaking it at once cannot
 * both take it. Leases are advisory: only the backend's own writes respect them.
 */
import { randomBytes } from 'node:crypto';
import * as fsSync from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { ConversationStore, ThreadLease } from './conversationStore';

const NOFOLLOW = fsSync.constants.O_NOFOLLOW ?? 0;
const CREATE = fsSync.constants.O_WRONLY | fsSync.constants.O_CREAT | fsSync.constants.O_EXCL | NOFOLLOW;
const READ = fsSync.constants.O_RDONLY | NOFOLLOW | (fsSync.constants.O_NONBLOCK ?? 0);

export interface LeaseTimings {
  /** How often a held lease's time is renewed. */
  renewMs: number;
  /** A lease not renewed for this long is stale even when its pid is alive (the pid may be another program's now). */
  expireMs: number;
}

export const DEFAULT_LEASE_TIMINGS: LeaseTimings = { renewMs: 10_000, expireMs: 60_000 };

export interface HeldLease {
  release(): Promise<void>;
}

interface LeaseRecord {
  pid: number;
  nonce: string;
}

export class FolderLeases {
  /** This store's leases: another store in the same process (a second backend on the folder) has its own. */
  private readonly nonce = randomBytes(12).toString('hex');
  private readonly holding = new Set<HeldLease>();

  constructor(
    private readonly dir: string,
    private readonly timings: LeaseTimings = DEFAULT_LEASE_TIMINGS,
  ) {}

  /** Takes the lease on `key`; undefined while someone else holds it. */
  async take(key: string): Promise<HeldLease | undefined> {
    const file = this.file(key);
    for (let attempt = 0; attempt < 3; attempt++) {
      if (await this.create(file)) return this.held(file);
      const found = await readLease(file);
      if (found === 'gone') continue;
      if (!(await this.stale(file, found))) return undefined;
      await this.breakStale(file, found);
    }
    return undefined;
  }

  /** Lets every lease still held go (the store closes). */
  async releaseAll(): Promise<void> {
    await Promise.all([...this.holding].map((lease) => lease.release()));
  }

  private file(key: string): string {
    return path.join(this.dir, `${key}.lease`);
  }

  /** Creates the lease file exclusively; false when it exists. */
  private async create(file: string): Promise<boolean> {
    let handle: fs.FileHandle;
    try {
      handle = await fs.open(file, CREATE, 0o600);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw e;
    }
    try {
      await handle.writeFile(JSON.stringify({ pid: process.pid, nonce: this.nonce } satisfies LeaseRecord));
    } finally {
      await handle.close();
    }
    return true;
  }

  private held(file: string): HeldLease {
    const renew = setInterval(() => {
      const now = new Date();
      fs.utimes(file, now, now).catch(() => undefined);
    }, this.timings.renewMs);
    renew.unref();
    let released = false;
    const lease: HeldLease = {
      release: async () => {
        if (released) return;
        released = true;
        this.holding.delete(lease);
        clearInterval(renew);
        const found = await readLease(file);
        // Only our own lease file goes: after an expiry another process may hold the name.
        if (typeof found === 'object' && found.nonce === this.nonce && found.pid === process.pid) await fs.rm(file, { force: true });
      },
    };
    this.holding.add(lease);
    return lease;
  }

  /** Whether a lease found at `file` no longer counts: unreadable for a while, its holder gone, or not renewed in time. */
  private async stale(file: string, found: LeaseRecord | 'unreadable'): Promise<boolean> {
    const st = await fs.lstat(file).catch(() => undefined);
    if (!st) return true;
    const age = Date.now() - st.mtimeMs;
    if (age > this.timings.expireMs) return true;
    // A lease being written right now is unreadable for a moment; one that stays so is debris.
    if (found === 'unreadable') return age > 2_000;
    return !alive(found.pid);
  }

  /** Moves a stale lease aside, and back when what moved turns out to be a fresh lease someone took meanwhile. */
  private async breakStale(file: string, found: LeaseRecord | 'unreadable'): Promise<void> {
    const aside = `${file}.${randomBytes(6).toString('hex')}.stale`;
    try {
      await fs.rename(file, aside);
    } catch {
      return;
    }
    const moved = await readLease(aside);
    const same = found === 'unreadable' ? moved === 'unreadable' : typeof moved === 'object' && moved.nonce === found.nonce && moved.pid === found.pid;
    if (same) {
      await fs.rm(aside, { force: true });
      return;
    }
    // Someone's fresh lease: put it back unless the name was taken again meanwhile.
    await fs.link(aside, file).catch(() => undefined);
    await fs.rm(aside, { force: true });
  }
}

/** How long a run waits for a thread another process runs before it gets RUN_BUSY. */
export const LEASE_WAIT_MS = 2_000;
const LEASE_POLL_MS = 50;

/**
 * The thread's lease for a run in a store other processes share, waiting up to `waitMs` while
 * another process holds it; undefined when it is still held then (or the run was cancelled), `none`
 * when the store needs no lease.
 */
export async function waitForThreadLease(store: ConversationStore, threadId: string, signal: AbortSignal, waitMs = LEASE_WAIT_MS): Promise<ThreadLease | undefined | 'none'> {
  if (!store.leaseThread) return 'none';
  const deadline = Date.now() + waitMs;
  for (;;) {
    const lease = await store.leaseThread(threadId);
    if (lease || Date.now() >= deadline || signal.aborted) return lease;
    await new Promise((resolve) => setTimeout(resolve, LEASE_POLL_MS));
  }
}

async function readLease(file: string): Promise<LeaseRecord | 'unreadable' | 'gone'> {
  let text: string;
  try {
    const handle = await fs.open(file, READ);
    try {
      // A lease is a few dozen bytes: whatever else is there is not read whole.
      const buffer = Buffer.alloc(1_024);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      text = buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await handle.close();
    }
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'gone' : 'unreadable';
  }
  try {
    const v = JSON.parse(text) as Partial<LeaseRecord>;
    return typeof v.pid === 'number' && typeof v.nonce === 'string' ? { pid: v.pid, nonce: v.nonce } : 'unreadable';
  } catch {
    return 'unreadable';
  }
}

/** Whether a process with this pid exists (EPERM: it does, another user's). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
