import { HOST_MESSAGE_REPLAY, LATEST_HOST_MESSAGES, type ChatContentItem, type HostToWebview } from '../../protocol/webview';

/** Messages kept for a view that is not listening (hidden, or not opened yet). */
export const MAX_QUEUED_MESSAGES = 5000;
/** Base64 image characters kept in that queue; older images lose their bytes first. */
export const MAX_QUEUED_IMAGE_CHARS = 4_000_000;

/**
 * Host → webview messages waiting for the view's `ready`, bounded in count and image bytes.
 * Text deltas of one run merge into one message; a reset or showThread drops everything queued before it.
 */
export class PendingHostMessages {
  private items: HostToWebview[] = [];
  /** Messages dropped since the last `take()` because the queue was full. */
  dropped = 0;

  get length(): number {
    return this.items.length;
  }

  push(message: HostToWebview): void {
    // Both replace the transcript: what was queued for the one shown before no longer matters.
    if (message.type === 'reset' || message.type === 'showThread') this.items = [];
    if (message.type === 'callRecord') {
      // A record is the call's whole state: a newer one replaces the queued one, in its place.
      const i = this.items.findIndex((m) => m.type === 'callRecord' && m.record.recordId === message.record.recordId);
      if (i >= 0) {
        this.items[i] = message;
        if (message.record.content?.some((c) => c.type === 'binary' && c.data)) this.trimImages();
        return;
      }
    }
    const last = this.items[this.items.length - 1];
    if (
      message.type === 'runEvent' && message.event.type === 'textDelta'
      && last?.type === 'runEvent' && last.event.type === 'textDelta' && last.event.runId === message.event.runId
    ) {
      this.items[this.items.length - 1] = { ...last, event: { ...last.event, text: last.event.text + message.event.text } };
      return;
    }
    this.items.push(message);
    if (message.type === 'runEvent' && message.event.type === 'toolCallEnded' && message.event.content.some((c) => c.type === 'binary' && c.data)) {
      this.trimImages();
    }
    if (message.type === 'callRecord' && message.record.content?.some((c) => c.type === 'binary' && c.data)) this.trimImages();
    if (this.items.length > MAX_QUEUED_MESSAGES) {
      this.items.shift();
      this.dropped++;
    }
  }

  /** Everything queued, oldest first; the queue is empty afterwards. */
  take(): HostToWebview[] {
    const out = this.items;
    this.items = [];
    this.dropped = 0;
    return out;
  }

  private trimImages(): void {
    let budget = MAX_QUEUED_IMAGE_CHARS;
    const trim = (items: ChatContentItem[]): ChatContentItem[] | undefined => {
      let changed = false;
      const out = items.map((c): ChatContentItem => {
        if (c.type !== 'binary' || !c.data) return c;
        if (c.data.length <= budget) {
          budget -= c.data.length;
          return c;
        }
        changed = true;
        const { data: _dropped, ...rest } = c;
        return rest;
      });
      return changed ? out : undefined;
    };
    for (let i = this.items.length - 1; i >= 0; i--) {
      const m = this.items[i];
      if (m.type === 'runEvent' && m.event.type === 'toolCallEnded') {
        const content = trim(m.event.content);
        if (content) this.items[i] = { ...m, event: { ...m.event, content } };
      } else if (m.type === 'callRecord' && m.record.content) {
        const content = trim(m.record.content);
        if (content) this.items[i] = { ...m, record: { ...m.record, content } };
      }
    }
  }
}

/**
 * What the host keeps of its messages for a view that says `ready`, as each message's declaration
 * says (`HOST_MESSAGE_REPLAY`, src/protocol/webview.ts): the newest of each `latest` message, and
 * the `queued` ones posted while the view was not listening, in order.
 */
export class HostOutbox {
  private readonly latest = new Map<HostToWebview['type'], HostToWebview>();
  private readonly queue = new PendingHostMessages();

  constructor(initial: readonly HostToWebview[] = []) {
    for (const m of initial) this.keep(m, true);
  }

  /** Messages dropped from the queue since the last `replay()` because it was full. */
  get dropped(): number {
    return this.queue.dropped;
  }

  /** Keeps `message` for the next `ready`, as its replay says; `delivered`: the view listens and gets it now. */
  keep(message: HostToWebview, delivered: boolean): void {
    const replay = HOST_MESSAGE_REPLAY[message.type];
    if (replay === 'latest') this.latest.set(message.type, message);
    else if (replay === 'queued' && !delivered) this.queue.push(message);
  }

  /** What a view that says `ready` gets before `sync`: each `latest` message, then the queue (emptied). */
  replay(): HostToWebview[] {
    return [...LATEST_HOST_MESSAGES.flatMap((type) => this.latest.get(type) ?? []), ...this.queue.take()];
  }
}
