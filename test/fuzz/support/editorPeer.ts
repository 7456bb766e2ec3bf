/**
 * The fuzzer as an editor: a raw `ws` client with the token that sends JSON text as it is (hostile
 * values included) and takes the backend's messages out of an inbox by predicate. One per case, so
 * nothing it received outlives the case.
 */
import { WebSocket } from 'ws';
import { decodeFromServer, encode, TOKEN_HEADER, type ClientToServer, type ServerToClient } from '../../../src/protocol';

export class EditorPeer {
  private readonly inbox: ServerToClient[] = [];
  /** What the backend sent that the protocol refuses (the editor would drop it with INVALID_MESSAGE). */
  readonly undecodable: string[] = [];
  private readonly waiters = new Set<(m: ServerToClient) => boolean>();
  readonly closed: Promise<string>;

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data, isBinary) => {
      const decoded = decodeFromServer(data as Buffer, isBinary, { maxMessageBytes: 256 * 1024 * 1024 });
      if (!decoded.ok) {
        if (this.undecodable.length < 5) this.undecodable.push(`${decoded.error.messageType ?? '?'} ${decoded.error.code}: ${decoded.error.message.slice(0, 120)}`);
        return;
      }
      // Each waiter has seen the inbox already: only the new message is offered (one check per
      // message, not a scan of a growing inbox per message: 56,000 text deltas took 30 s).
      for (const w of [...this.waiters]) if (w(decoded.message)) return;
      this.inbox.push(decoded.message);
    });
    this.closed = new Promise((resolve) => ws.once('close', (code) => resolve(`closed ${code}`)));
    ws.on('error', () => {});
  }

  static connect(url: string, token: string): Promise<EditorPeer> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { headers: { [TOKEN_HEADER]: token }, perMessageDeflate: false, maxPayload: 256 * 1024 * 1024 });
      ws.once('open', () => resolve(new EditorPeer(ws)));
      ws.once('error', reject);
    });
  }

  sendText(text: string): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(text);
  }

  send(message: ClientToServer): void {
    const frame = encode(message);
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(frame.data, { binary: frame.binary });
  }

  /** The first message (received or to come) that `match` accepts, taken out of the inbox; or the close. */
  next<T extends ServerToClient>(match: (m: ServerToClient) => m is T, timeoutMs?: number): Promise<T | string>;
  next(match: (m: ServerToClient) => boolean, timeoutMs?: number): Promise<ServerToClient | string>;
  next(match: (m: ServerToClient) => boolean, timeoutMs = 15_000): Promise<ServerToClient | string> {
    return new Promise((resolve) => {
      const finish = (v: ServerToClient | string) => {
        clearTimeout(timer);
        this.waiters.delete(offer);
        resolve(v);
      };
      /** Takes `m` when it matches. */
      const offer = (m: ServerToClient): boolean => {
        if (!match(m)) return false;
        finish(m);
        return true;
      };
      const timer = setTimeout(() => finish(`nothing within ${timeoutMs} ms`), timeoutMs);
      const i = this.inbox.findIndex(match);
      if (i >= 0) return finish(this.inbox.splice(i, 1)[0]);
      this.waiters.add(offer);
      void this.closed.then((c) => this.waiters.has(offer) && finish(c));
    });
  }

  /** Every message still in the inbox of `type`. */
  take(type: ServerToClient['type']): ServerToClient[] {
    const out = this.inbox.filter((m) => m.type === type);
    for (const m of out) this.inbox.splice(this.inbox.indexOf(m), 1);
    return out;
  }

  terminate(): void {
    this.ws.terminate();
  }
}

/** One line for the report: a message's type and code, or the close. */
export function describe(m: ServerToClient | string): string {
  if (typeof m === 'string') return m;
  if (m.type === 'error' || m.type === 'runError') return `${m.type} ${m.code}`;
  if (m.type === 'runFinished') return `run ${m.reason}`;
  return m.type;
}
