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

/**
 * An event whose source can be swapped while its listeners stay subscribed (as VS Code's `Relay`):
 * the owner of something it replaces (a connection dropped for a new URL) exposes that thing's
 * event as its own, instead of re-firing each event through an emitter of its own.
 */
export class Relay<T> implements Disposable {
  private readonly emitter: Emitter<T>;
  private subscription: Disposable | undefined;
  readonly event: Event<T>;

  constructor(onListenerError?: (error: unknown) => void) {
    this.emitter = new Emitter<T>(onListenerError);
    this.event = this.emitter.event;
  }

  /** Forwards `source`'s events from now on, and no longer the previous source's; `undefined` forwards nothing. */
  set input(source: Event<T> | undefined) {
    this.subscription?.dispose();
    this.subscription = source?.((event) => this.emitter.fire(event));
  }

  /** Fires an event of the owner's own, for what no source reports (there is none right now, say). */
  fire(event: T): void {
    this.emitter.fire(event);
  }

  dispose(): void {
    this.input = undefined;
    this.emitter.dispose();
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
