/**
 * A minimal typed event emitter shaped like VS Code's `Event`/`EventEmitter`, so `src/vscode` can
 * subscribe with the same habits (`const d = core.onDidChangeState(fn); context.subscriptions.push(d)`)
 * without core importing `vscode`.
 */

/** Anything that releases a resource; structurally compatible with `vscode.Disposable`. */
export interface Disposable {
  dispose(): void;
}

export type Event<T> = (listener: (event: T) => void) => Disposable;

export class Emitter<T> implements Disposable {
  private listeners = new Set<(event: T) => void>();

  /**
   * @param onListenerError where a throwing listener's error goes. A listener's bug must not stop
   *   the other listeners, nor unwind into the code that fired the event (a socket handler, a timer).
   */
  constructor(private readonly onListenerError: (error: unknown) => void = rethrowLater) {}

  readonly event: Event<T> = (listener) => {
    this.listeners.add(listener);
    return { dispose: () => void this.listeners.delete(listener) };
  };

  fire(event: T): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }

  get hasListeners(): boolean {
    return this.listeners.size > 0;
  }

  dispose(): void {
    this.listeners.clear();
  }
}

function rethrowLater(error: unknown): void {
  setTimeout(() => {
    throw error;
  }, 0);
}

/** Disposes a list of disposables once, in reverse order of creation. */
export class DisposableStore implements Disposable {
  private items: Disposable[] = [];
  private disposed = false;

  add<D extends Disposable>(item: D): D {
    if (this.disposed) item.dispose();
    else this.items.push(item);
    return item;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const item of this.items.reverse()) item.dispose();
    this.items = [];
  }
}
