/**
 * Admission of TCP connections before the WebSocket upgrade.
 *
 * Every accepted socket costs a file descriptor until it upgrades or goes away. Node enforces its
 * own `headersTimeout` only on a sweep every `connectionsCheckingInterval` (30 s by default), so
 * 1,250 sockets that each sent half a request exhausted a 1,200 file limit and locked the editor
 * out. Here each socket gets its own deadline timer, and at most `max` sockets may wait at once:
 * past it the OLDEST waiting socket is dropped, not the new one. A real client sends its whole
 * upgrade request in one segment and leaves this set within a millisecond, so it is never the
 * oldest; a slowloris attacker's sockets are, and its own new sockets push them out.
 */
import type { Socket } from 'node:net';
import type { Logger } from '../log';

export interface PendingLimits {
  /** Sockets that may wait for their upgrade at once. */
  max: number;
  /** Milliseconds a socket has to send a complete request. */
  deadlineMs: number;
}

export class PendingSockets {
  /** Insertion order is age order: the first key is the oldest socket. */
  private readonly waiting = new Map<Socket, NodeJS.Timeout>();
  private dropped = 0;

  constructor(
    private readonly limits: PendingLimits,
    private readonly log: Logger,
  ) {}

  get size(): number {
    return this.waiting.size;
  }

  /** A TCP connection was accepted: it waits for its upgrade, under a deadline and the cap. */
  accepted(socket: Socket): void {
    if (this.waiting.size >= this.limits.max) {
      const oldest = this.waiting.keys().next().value;
      if (oldest) this.drop(oldest, `more than ${this.limits.max} connections were waiting to upgrade`);
    }
    const timer = setTimeout(() => this.drop(socket, `no complete request within ${this.limits.deadlineMs} ms`), this.limits.deadlineMs);
    timer.unref();
    this.waiting.set(socket, timer);
    socket.once('close', () => this.settled(socket));
  }

  /** The socket upgraded (or closed): it no longer waits. */
  settled(socket: Socket): void {
    const timer = this.waiting.get(socket);
    if (timer === undefined) return;
    clearTimeout(timer);
    this.waiting.delete(socket);
  }

  private drop(socket: Socket, why: string): void {
    this.settled(socket);
    socket.destroy();
    // One line per hundred drops: a flood of sockets must not become a flood of log lines.
    if (this.dropped++ % 100 === 0) this.log.warn(`dropped a connection before its upgrade: ${why} (${this.dropped} so far)`);
  }
}
