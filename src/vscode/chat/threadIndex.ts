/**
 * The chat's thread index: which conversations this workspace has (id, title, dates), which one is
 * current, and each one's transcript as the chat shows it. Plain Node over one folder, so the tests
 * use a real temp folder: `index.json` plus one `<id>.json` per transcript, each written whole to a
 * temp file and renamed over the old one (a crash leaves the old file, never half a file).
 *
 * The transcript is the webview's own saved state, opaque here; the webview parses it again when it
 * is shown. Caps: a thread count and a total transcript size; the least recently used threads (never
 * the current one) are dropped beyond them, and the caller is told which, to say so in the chat.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { z } from 'zod';

export const MAX_TITLE_CHARS = 80;
export const DEFAULT_TITLE = 'New chat';

export interface ThreadLimits {
  /** Threads kept; the least recently used are dropped beyond it. */
  maxThreads: number;
  /** Characters of one saved transcript; a larger one is not saved. */
  maxTranscriptChars: number;
  /** Characters of all saved transcripts together. */
  maxTotalChars: number;
}

export const DEFAULT_THREAD_LIMITS: ThreadLimits = {
  maxThreads: 100,
  maxTranscriptChars: 4_000_000,
  maxTotalChars: 64_000_000,
};

const ThreadMeta = z.object({
  id: z.string().uuid(),
  title: z.string().min(1).max(MAX_TITLE_CHARS),
  /** False until the first user message gave the thread its title (or the user named it). */
  titled: z.boolean(),
  createdAt: z.number().int().nonnegative(),
  updatedAt: z.number().int().nonnegative(),
  /** Characters of the saved transcript (0 when none is saved). */
  transcriptChars: z.number().int().nonnegative(),
  /** When the view saved the transcript kept here (the view's clock; 0 when none is saved). */
  transcriptSavedAt: z.number().nonnegative().default(0),
});
export type ThreadMeta = z.infer<typeof ThreadMeta>;

const IndexFile = z.object({
  version: z.literal(1),
  currentId: z.string().uuid().nullable(),
  threads: z.array(ThreadMeta),
});

/** The first line of a user message, trimmed and clipped, as a thread title. */
export function titleFrom(text: string): string {
  const line = text.trim().split(/\r?\n/, 1)[0]?.replace(/\s+/g, ' ').trim() ?? '';
  if (!line) return DEFAULT_TITLE;
  return line.length <= MAX_TITLE_CHARS ? line : `${line.slice(0, MAX_TITLE_CHARS - 1)}…`;
}

export interface ThreadIndexOptions {
  limits?: Partial<ThreadLimits>;
  now?: () => number;
  /** The current thread when there is no index yet (the id an older version kept). */
  adoptId?: string;
  /** A write failed (disk full, permissions); the index in memory stays as it was changed. */
  onWriteError?: (error: Error) => void;
}

export class ThreadIndex {
  private threads: ThreadMeta[];
  private currentId: string;
  /** Writes run one after another, so the files end as the last change left them. */
  private writes: Promise<void> = Promise.resolve();

  private constructor(
    private readonly dir: string,
    private readonly limits: ThreadLimits,
    private readonly now: () => number,
    private readonly onWriteError: (error: Error) => void,
    saved: z.infer<typeof IndexFile> | undefined,
    adoptId: string | undefined,
  ) {
    this.threads = saved?.threads ?? [];
    const current = saved?.currentId ?? undefined;
    if (current !== undefined && this.threads.some((t) => t.id === current)) {
      this.currentId = current;
    } else {
      // No index yet: adopt the thread id an older version kept, so its backend history stays reachable.
      const id = adoptId !== undefined && z.string().uuid().safeParse(adoptId).success && !this.threads.some((t) => t.id === adoptId)
        ? adoptId : undefined;
      this.currentId = this.add(id).id;
    }
  }

  /**
   * Reads the index in `dir` (a missing or corrupt one starts empty). Synchronous: the file is small and the caller's constructor needs it.
   */
  static open(dir: string, options: ThreadIndexOptions = {}): ThreadIndex {
    mkdirSync(dir, { recursive: true });
    let saved: z.infer<typeof IndexFile> | undefined;
    try {
      const parsed = IndexFile.safeParse(JSON.parse(readFileSync(path.join(dir, 'index.json'), 'utf8')));
      if (parsed.success) saved = parsed.data;
    } catch {
      // Missing or unreadable: start a fresh index.
    }
    const index = new ThreadIndex(dir, { ...DEFAULT_THREAD_LIMITS, ...options.limits }, options.now ?? Date.now, options.onWriteError ?? (() => undefined), saved, options.adoptId);
    if (!saved || saved.currentId !== index.currentId) index.saveIndex();
    return index;
  }

  get current(): ThreadMeta {
    const t = this.threads.find((x) => x.id === this.currentId);
    if (!t) throw new Error('the current thread is missing from the index');
    return t;
  }

  get(id: string): ThreadMeta | undefined {
    return this.threads.find((t) => t.id === id);
  }

  /** Threads whose title contains `query` (any case), most recently updated first. */
  list(query = ''): ThreadMeta[] {
    const q = query.trim().toLowerCase();
    return this.threads
      .filter((t) => !q || t.title.toLowerCase().includes(q))
      .sort((a, b) => b.updatedAt - a.updatedAt || b.createdAt - a.createdAt);
  }

  /**
   * Makes a new, empty thread current, unless the current one is still empty (no message yet):
   * then that one stays, so repeated New Chat does not fill the list with empty threads.
   */
  create(): { thread: ThreadMeta; dropped: ThreadMeta[] } {
    const current = this.current;
    if (!current.titled && current.transcriptChars === 0) return { thread: current, dropped: [] };
    const thread = this.add(undefined);
    this.currentId = thread.id;
    const dropped = this.enforceCaps();
    this.saveIndex();
    return { thread, dropped };
  }

  /** Makes `id` current; false when there is no such thread. */
  switchTo(id: string): boolean {
    if (!this.get(id)) return false;
    this.currentId = id;
    this.saveIndex();
    return true;
  }

  /** The user sent `text` in thread `id`: it becomes the most recent, and named after it if still untitled. */
  noteUserMessage(id: string, text: string): void {
    this.update(id, (t) => ({ ...t, updatedAt: this.now(), ...(t.titled ? {} : { title: titleFrom(text), titled: true }) }));
  }

  rename(id: string, title: string): boolean {
    const clean = title.replace(/\s+/g, ' ').trim().slice(0, MAX_TITLE_CHARS);
    if (!clean) return false;
    return this.update(id, (t) => ({ ...t, title: clean, titled: true }));
  }

  /**
   * Removes a thread and its transcript. When it was the current one, the most recent other thread
   * becomes current (a new empty one when none is left). Returns false when there is no such thread.
   */
  delete(id: string): boolean {
    if (!this.get(id)) return false;
    this.threads = this.threads.filter((t) => t.id !== id);
    if (this.currentId === id) this.currentId = this.list()[0]?.id ?? this.add(undefined).id;
    this.saveIndex();
    this.queue(() => rm(this.transcriptPath(id), { force: true }));
    return true;
  }

  /**
   * Saves the transcript of thread `id` (JSON text from the webview). Returns the threads dropped to
   * stay within the caps, or undefined when it was not saved (unknown thread, or over the size cap).
   */
  saveTranscript(id: string, json: string, savedAt = 0): ThreadMeta[] | undefined {
    if (json.length > this.limits.maxTranscriptChars || !this.get(id)) return undefined;
    this.update(id, (t) => ({ ...t, transcriptChars: json.length, transcriptSavedAt: savedAt }), false);
    const file = this.transcriptPath(id);
    this.queue(() => atomicWrite(file, json));
    const dropped = this.enforceCaps();
    this.saveIndex();
    return dropped;
  }

  /** The saved transcript of thread `id`, parsed as JSON; undefined when none is saved or it is unreadable. */
  async loadTranscript(id: string): Promise<unknown> {
    if (!this.get(id)) return undefined;
    await this.flush();
    try {
      return JSON.parse(await readFile(this.transcriptPath(id), 'utf8')) as unknown;
    } catch {
      return undefined;
    }
  }

  /** Resolves when every change so far is on disk. */
  flush(): Promise<void> {
    return this.writes;
  }

  private add(id: string | undefined): ThreadMeta {
    const at = this.now();
    const thread: ThreadMeta = { id: id ?? randomUUID(), title: DEFAULT_TITLE, titled: false, createdAt: at, updatedAt: at, transcriptChars: 0, transcriptSavedAt: 0 };
    this.threads.push(thread);
    return thread;
  }

  private update(id: string, f: (t: ThreadMeta) => ThreadMeta, save = true): boolean {
    const i = this.threads.findIndex((t) => t.id === id);
    if (i < 0) return false;
    this.threads[i] = f(this.threads[i]);
    if (save) this.saveIndex();
    return true;
  }

  /** Drops the least recently used threads (never the current one) beyond the count and size caps. */
  private enforceCaps(): ThreadMeta[] {
    const dropped: ThreadMeta[] = [];
    const total = () => this.threads.reduce((n, t) => n + t.transcriptChars, 0);
    while (this.threads.length > this.limits.maxThreads || (total() > this.limits.maxTotalChars && this.threads.length > 1)) {
      const oldest = this.list().reverse().find((t) => t.id !== this.currentId);
      if (!oldest) break;
      this.threads = this.threads.filter((t) => t !== oldest);
      this.queue(() => rm(this.transcriptPath(oldest.id), { force: true }));
      dropped.push(oldest);
    }
    return dropped;
  }

  private saveIndex(): void {
    const body = JSON.stringify({ version: 1, currentId: this.currentId, threads: this.threads } satisfies z.infer<typeof IndexFile>);
    this.queue(() => atomicWrite(path.join(this.dir, 'index.json'), body));
  }

  private transcriptPath(id: string): string {
    // Ids are UUIDs (checked by the schema and by `add`), so they are safe as file names.
    return path.join(this.dir, `${id}.json`);
  }

  private queue(write: () => Promise<void>): void {
    this.writes = this.writes.then(write).catch((e: unknown) => this.onWriteError(e instanceof Error ? e : new Error(String(e))));
  }
}

async function atomicWrite(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, text, 'utf8');
  await rename(temp, file);
}
