/**
 * Tells waiting subscriptions that the log grew. The version counter closes the gap between
 * "read found nothing" and "started waiting": a wait for an already-passed version returns at once.
 */
export class ChangeSignal {
  private currentVersion = 0;
  private readonly waiters = new Set<() => void>();

  get version(): number {
    return this.currentVersion;
  }

  notify(): void {
    this.currentVersion += 1;
    for (const wake of [...this.waiters]) wake();
  }

  /** Resolves on the next change after `seen`, after `pollMs` (if given), or when `abort` fires. */
  waitBeyond(seen: number, pollMs: number | undefined, abort: Promise<void>): Promise<void> {
    if (this.currentVersion !== seen) return Promise.resolve();
    return new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const wake = (): void => {
        this.waiters.delete(wake);
        if (timer) clearTimeout(timer);
        resolve();
      };
      this.waiters.add(wake);
      if (pollMs !== undefined) {
        timer = setTimeout(wake, pollMs);
        // A live subscription must not keep the process alive on its own.
        timer.unref();
      }
      void abort.then(wake);
    });
  }
}
