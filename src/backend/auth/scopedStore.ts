/**
 * A user's view of the conversation store: the only way a session reaches it. Thread ids are chosen
 * by the client, so two users may pick the same one; the view turns each into a key no other user
 * can produce. A named or JWT user's keys are `~u/<SHA-256 of the user>/<threadId>`. The shared
 * token's user (`anonymous`) keeps the plain thread id, so data saved before users existed is still
 * found, except that an id starting with `~` gets one more `~`: no anonymous key can then begin with
 * `~u/`, and the mapping stays one-to-one. The `ConversationStore` interface is unchanged, so any
 * store (memory, log, Redis) works under it.
 */
import { createHash } from 'node:crypto';
import type { ConversationStore, StoredRecord, StoredThread, ThreadLease, ThreadSummary } from '../store/conversationStore';
import { ANONYMOUS } from './user';

const MARK = '~';
const USER_KEYS = `${MARK}u/`;

/** The key under which `user`'s thread `threadId` is stored. */
export function scopedKey(user: string, threadId: string): string {
  if (user === ANONYMOUS) return threadId.startsWith(MARK) ? MARK + threadId : threadId;
  return `${prefixOf(user)}${threadId}`;
}

/** The thread id a stored key has in `user`'s view; undefined when the key is someone else's. */
function ownThreadId(user: string, key: string): string | undefined {
  if (user !== ANONYMOUS) {
    const prefix = prefixOf(user);
    return key.startsWith(prefix) ? key.slice(prefix.length) : undefined;
  }
  if (key.startsWith(USER_KEYS)) return undefined;
  if (!key.startsWith(MARK)) return key;
  return key.startsWith(MARK + MARK) ? key.slice(1) : undefined;
}

function prefixOf(user: string): string {
  return `${USER_KEYS}${createHash('sha256').update(user, 'utf8').digest('hex')}/`;
}

export function scopedStore(store: ConversationStore, user: string): ConversationStore {
  return new UserScopedStore(store, user);
}

class UserScopedStore implements ConversationStore {
  readonly leaseThread?: (threadId: string) => Promise<ThreadLease | undefined>;

  constructor(
    private readonly inner: ConversationStore,
    private readonly user: string,
  ) {
    const lease = inner.leaseThread?.bind(inner);
    if (lease) this.leaseThread = (threadId) => lease(scopedKey(this.user, threadId));
  }

  append(threadId: string, records: readonly StoredRecord[]): Promise<void> {
    return this.inner.append(scopedKey(this.user, threadId), records);
  }

  async load(threadId: string): Promise<StoredThread | undefined> {
    const thread = await this.inner.load(scopedKey(this.user, threadId));
    return thread ? { ...thread, threadId } : undefined;
  }

  async list(): Promise<ThreadSummary[]> {
    const own: ThreadSummary[] = [];
    for (const t of await this.inner.list()) {
      const threadId = ownThreadId(this.user, t.threadId);
      if (threadId !== undefined) own.push({ ...t, threadId });
    }
    return own;
  }

  delete(threadId: string): Promise<void> {
    return this.inner.delete(scopedKey(this.user, threadId));
  }

  /** The store is shared by every session; the backend closes it, never one user's view. */
  close(): Promise<void> {
    return Promise.resolve();
  }
}
