/**
 * How long whoever carries a call is there: a backend session (until it cannot be resumed any
 * more), an MCP client's HTTP request and session, an agent process. When it ends, every call it
 * carries is cancelled by the dispatcher: an open prompt closes as cancelled, a tool that waits is
 * aborted, and an Allow clicked afterwards runs nothing, because nobody is left to receive the result.
 *
 * One object serves any number of calls (an Emitter, not an AbortSignal: a session carries more
 * calls than an AbortSignal's listener warning allows).
 */
import { Emitter, type Disposable } from '../../base/events';
import { CodedError, ErrorCode } from '../../protocol';

export class CallerLifetime {
  private readonly endEmitter = new Emitter<CodedError>();
  private reason: CodedError | undefined;

  /** Why it ended (the calls it carried end with this code and message), or undefined while it lasts. */
  get endedBy(): CodedError | undefined {
    return this.reason;
  }

  /** Ends it once; later calls change nothing. */
  end(code: ErrorCode, message: string): void {
    if (this.reason) return;
    this.reason = new CodedError(code, message);
    this.endEmitter.fire(this.reason);
    this.endEmitter.dispose();
  }

  /** Calls `listener` when it ends (at once when it has ended already). */
  onEnd(listener: (reason: CodedError) => void): Disposable {
    if (this.reason) {
      listener(this.reason);
      return { dispose: () => {} };
    }
    return this.endEmitter.event(listener);
  }

  /** A lifetime that ends when `signal` aborts, with `code` and `message`. */
  static until(signal: AbortSignal, code: ErrorCode = ErrorCode.Cancelled, message = 'the caller is gone'): CallerLifetime {
    const lifetime = new CallerLifetime();
    if (signal.aborted) lifetime.end(code, message);
    else signal.addEventListener('abort', () => lifetime.end(code, message), { once: true });
    return lifetime;
  }
}
