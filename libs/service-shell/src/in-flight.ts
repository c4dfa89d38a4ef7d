/** The requests a process is answering right now, so that a stop can wait for them, or say which it left. */
export interface InFlight {
  /** Counts `work` as in flight (under `label`, its subject) until it settles; returns it unchanged. */
  track<T>(label: string, work: Promise<T>): Promise<T>;
  readonly size: number;
  /** Resolves once nothing is in flight, or after `timeoutMs` with the labels of what still is. */
  settle(timeoutMs: number): Promise<string[]>;
}

export function createInFlight(): InFlight {
  const running = new Map<number, string>();
  const idle = new Set<() => void>();
  let next = 0;
  return {
    track(label, work) {
      const id = next++;
      running.set(id, label);
      const done = () => {
        running.delete(id);
        if (running.size === 0) for (const wake of idle) wake();
      };
      work.then(done, done);
      return work;
    },
    get size() {
      return running.size;
    },
    async settle(timeoutMs) {
      if (running.size === 0) return [];
      let timer: NodeJS.Timeout | undefined;
      let wake = () => undefined as void;
      await new Promise<void>((resolve) => {
        wake = resolve;
        idle.add(wake);
        timer = setTimeout(resolve, timeoutMs);
      });
      idle.delete(wake);
      clearTimeout(timer);
      return [...running.values()];
    },
  };
}
