/** Gives back a slot taken from `Slots`; calling it twice gives back one slot. */
export type Release = () => void;

interface Waiter {
  grant(release: Release): void;
}

/**
 * A first-come, first-served counting semaphore whose waiters can leave the queue: a call that gives
 * up (its deadline passed, its caller went away) must not keep its place, nor be granted a slot
 * nobody will release.
 */
export class Slots {
  private inUse = 0;
  private readonly queue: Waiter[] = [];

  constructor(readonly capacity: number) {}

  get running(): number {
    return this.inUse;
  }

  get waiting(): number {
    return this.queue.length;
  }

  /** Resolves with a release once a slot is free; rejects with the signal's reason if it fires first. */
  acquire(signal?: AbortSignal): Promise<Release> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.inUse < this.capacity && this.queue.length === 0) {
      this.inUse += 1;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        grant: (release) => {
          signal?.removeEventListener('abort', leave);
          resolve(release);
        },
      };
      const leave = () => {
        const at = this.queue.indexOf(waiter);
        if (at >= 0) this.queue.splice(at, 1);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', leave, { once: true });
      this.queue.push(waiter);
    });
  }

  private releaser(): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.queue.shift();
      // The slot passes straight to the next waiter, so a newcomer cannot overtake the queue.
      if (next) next.grant(this.releaser());
      else this.inUse -= 1;
    };
  }
}

/** One Slots per key, created on first use and dropped when idle, so keys (project roots) do not pile up. */
export class KeyedSlots {
  private readonly byKey = new Map<string, Slots>();

  constructor(private readonly capacity: number) {}

  async acquire(key: string, signal?: AbortSignal): Promise<Release> {
    let slots = this.byKey.get(key);
    if (!slots) {
      slots = new Slots(this.capacity);
      this.byKey.set(key, slots);
    }
    const owner = slots;
    const drop = () => {
      if (owner.running === 0 && owner.waiting === 0 && this.byKey.get(key) === owner) this.byKey.delete(key);
    };
    try {
      const release = await owner.acquire(signal);
      return () => {
        release();
        drop();
      };
    } catch (error) {
      drop();
      throw error;
    }
  }

  get size(): number {
    return this.byKey.size;
  }
}
