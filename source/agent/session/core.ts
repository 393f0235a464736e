import type {Result} from '../../core/result.js';
import type {SessionEvent, SessionListener} from './events.js';

export const BUSY_MESSAGE = 'Wait for the turn to finish (or press esc) first.';
const MAX_BACKLOG = 100;

/**
 * What every session operation shares: listeners, the busy flag and the one abort that
 * interrupt() reaches. A turn, a compaction, an undo, a resume: each holds the session from its
 * first step, so nothing else can start while it awaits anything, and Esc reaches all of them.
 */
export abstract class SessionCore {
  private readonly listeners = new Set<SessionListener>();
  /**
   * What was reported before the first listener came: the TUI reads startEvents() when it mounts
   * and subscribes a moment later, and a notice (the server's window, found in the background)
   * can land in between. Kept for the first listener, then never again.
   */
  private backlog: SessionEvent[] | null = [];
  private running: AbortController | null = null;
  private readonly busyListeners = new Set<(busy: boolean) => void>();
  private isBusy = false;

  get busy(): boolean {
    return this.isBusy;
  }

  subscribe(listener: SessionListener): () => void {
    this.listeners.add(listener);
    const backlog = this.backlog ?? [];
    this.backlog = null;
    for (const event of backlog) listener(event);
    return () => this.listeners.delete(listener);
  }

  /** Aborts whatever the session is doing: a turn's command is killed, a compaction's request dropped. */
  interrupt(): void {
    this.running?.abort();
  }

  protected emit(event: SessionEvent): void {
    if (this.backlog && this.backlog.length < MAX_BACKLOG) this.backlog.push(event);
    for (const listener of this.listeners) listener(event);
  }

  /**
   * Holds the session for `work`: refused (null) while anything else holds it. The signal aborts
   * on interrupt() and when `outer` does; the session is free again once `work` settles.
   */
  protected async hold<T>(work: (signal: AbortSignal) => Promise<T>, outer?: AbortSignal): Promise<{value: T} | null> {
    if (this.isBusy) return null;
    const abort = new AbortController();
    const stop = () => abort.abort();
    outer?.addEventListener('abort', stop, {once: true});
    if (outer?.aborted) abort.abort();
    this.running = abort;
    this.setBusy(true);
    try {
      return {value: await work(abort.signal)};
    } finally {
      outer?.removeEventListener('abort', stop);
      this.running = null;
      this.setBusy(false);
    }
  }

  /** hold() for operations that answer with a Result: "busy" is a sentence. */
  protected async exclusive<T>(work: (signal: AbortSignal) => Promise<Result<T>>): Promise<Result<T>> {
    return (await this.hold(work))?.value ?? {ok: false, error: BUSY_MESSAGE};
  }

  /** Told each time the session becomes busy or free; unlike subscribe(), takes no backlog. */
  onBusy(listener: (busy: boolean) => void): () => void {
    this.busyListeners.add(listener);
    return () => this.busyListeners.delete(listener);
  }

  private setBusy(busy: boolean): void {
    this.isBusy = busy;
    this.emit({type: 'busy', busy});
    for (const listener of this.busyListeners) listener(busy);
  }
}
