/**
 * The sessions an HTTP server holds, least recently used first. Each costs a transport and an MCP
 * server (about 110 KB), and a client that initializes and never closes would otherwise keep them all:
 * a session idle for `idleMs` is expired, and a new one past `max` pushes out the least recently used.
 */
export interface SessionTable<T> {
  readonly size: number;
  /** The session, marked as used now. */
  use(id: string): T | undefined;
  /** Adds a session; answers the sessions it pushed out (already removed), for the caller to close. */
  add(id: string, session: T): T[];
  delete(id: string): void;
  /** Removes and answers the sessions idle for longer than `idleMs`. */
  expire(): T[];
  /** Removes and answers every session. */
  clear(): T[];
}

export function createSessionTable<T>(options: { max: number; idleMs: number; now: () => number }): SessionTable<T> {
  // A Map iterates in insertion order: re-inserting on use keeps it least recently used first.
  const sessions = new Map<string, { session: T; usedAt: number }>();
  const take = (id: string) => {
    const entry = sessions.get(id);
    sessions.delete(id);
    return entry?.session;
  };
  return {
    get size() {
      return sessions.size;
    },
    use(id) {
      const session = take(id);
      if (session !== undefined) sessions.set(id, { session, usedAt: options.now() });
      return session;
    },
    add(id, session) {
      const pushedOut: T[] = [];
      for (const oldest of sessions.keys()) {
        if (sessions.size < options.max) break;
        pushedOut.push(take(oldest)!);
      }
      sessions.set(id, { session, usedAt: options.now() });
      return pushedOut;
    },
    delete(id) {
      sessions.delete(id);
    },
    expire() {
      const before = options.now() - options.idleMs;
      const expired: T[] = [];
      for (const [id, { usedAt }] of sessions) {
        if (usedAt >= before) break;
        expired.push(take(id)!);
      }
      return expired;
    },
    clear() {
      const all = [...sessions.values()].map((entry) => entry.session);
      sessions.clear();
      return all;
    },
  };
}
