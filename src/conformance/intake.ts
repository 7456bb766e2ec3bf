/**
 * How much the kit keeps of what a peer under test sends. The kit keeps every message so a check can
 * look back, which a hostile or broken peer could turn into unbounded memory: one frame is capped at
 * the protocol's largest message (ws closes the connection with 1009 past it), and everything kept
 * at `maxKeptBytes`, past which the kit records a violation and closes the connection.
 */
import type { WebSocket } from 'ws';
import { DEFAULT_LIMITS, ErrorCode, type DecodeError } from '../protocol';

/** The largest frame the kit reads: the protocol's largest message, plus room for the envelope. */
export const MAX_FRAME_BYTES = DEFAULT_LIMITS.maxMessageBytes + 1024 * 1024;
/** What the kit keeps of one connection before it stops: far more than any check needs. */
export const MAX_KEPT_BYTES = 256 * 1024 * 1024;
/** The close code for "too big" (RFC 6455). */
const MESSAGE_TOO_BIG = 1009;

export class Intake {
  private kept = 0;
  private full = false;

  constructor(
    private readonly ws: WebSocket,
    private readonly maxKeptBytes = MAX_KEPT_BYTES,
  ) {}

  /**
   * Whether a message of `bytes` may be kept. The first refusal closes the connection and returns
   * the violation to record in its place; later ones (frames already on their way) return undefined.
   */
  admit(bytes: number): { ok: true } | { ok: false; violation: DecodeError | undefined } {
    if (!this.full && this.kept + bytes <= this.maxKeptBytes) {
      this.kept += bytes;
      return { ok: true };
    }
    if (this.full) return { ok: false, violation: undefined };
    this.full = true;
    this.ws.close(MESSAGE_TOO_BIG, 'the conformance kit keeps at most its limit of one connection');
    return { ok: false, violation: { code: ErrorCode.MessageTooLarge, message: `the peer sent more than ${this.maxKeptBytes} bytes on one connection; the kit stopped keeping messages and closed it` } };
  }
}
