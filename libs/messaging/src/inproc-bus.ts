import { BusListener, BusMessage, BusResponder, BusSubscription, Headers, MessageBus } from './bus';
import { NoRespondersError, RequestTimeoutError } from './errors';
import { subjectMatches } from './subject-match';

interface Responder {
  queue: string;
  responder: BusResponder;
}

/**
 * The embedded transport: one process, same subjects and JSON bodies as NATS.
 * Bodies stay strings end to end, so no object is ever shared between caller and handler.
 */
export function createInprocBus(): MessageBus {
  const responders = new Map<string, Responder[]>();
  // Exact subjects are looked up directly; only wildcard patterns are matched one by one.
  const exact = new Map<string, Set<BusListener>>();
  const wildcards = new Set<{ pattern: string; listener: BusListener }>();
  let turn = 0;
  let closed = false;

  const pick = (subject: string): Responder | undefined => {
    const group = responders.get(subject);
    if (!group || group.length === 0) return undefined;
    return group[turn++ % group.length];
  };

  return {
    kind: 'inproc',
    async request(subject, body, { headers = {}, timeoutMs }) {
      const target = closed ? undefined : pick(subject);
      if (!target) throw new NoRespondersError(subject);
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new RequestTimeoutError(subject, timeoutMs)), timeoutMs);
      });
      try {
        const reply = await Promise.race([target.responder({ subject, body, headers }), timeout]);
        return { subject, body: reply.body, headers: reply.headers ?? {} };
      } finally {
        clearTimeout(timer);
      }
    },
    respond(subject, queue, responder) {
      const entry = { queue, responder };
      responders.set(subject, [...(responders.get(subject) ?? []), entry]);
      return {
        unsubscribe: () => {
          responders.set(subject, (responders.get(subject) ?? []).filter((r) => r !== entry));
        },
      };
    },
    publish(subject, body, headers: Headers = {}) {
      if (closed) return;
      const message: BusMessage = { subject, body, headers };
      for (const listener of exact.get(subject) ?? []) queueMicrotask(() => listener(message));
      for (const { pattern, listener } of wildcards) {
        if (subjectMatches(pattern, subject)) queueMicrotask(() => listener(message));
      }
    },
    subscribe(pattern, listener): BusSubscription {
      if (pattern.includes('*') || pattern.includes('>')) {
        const entry = { pattern, listener };
        wildcards.add(entry);
        return { unsubscribe: () => wildcards.delete(entry) };
      }
      const set = exact.get(pattern) ?? new Set<BusListener>();
      // A separate wrapper per subscription, so the same function subscribed twice is two subscriptions.
      const own: BusListener = (m) => listener(m);
      set.add(own);
      exact.set(pattern, set);
      return {
        unsubscribe: () => {
          set.delete(own);
          if (set.size === 0 && exact.get(pattern) === set) exact.delete(pattern);
        },
      };
    },
    async flush() {},
    async close() {
      closed = true;
      responders.clear();
      exact.clear();
      wildcards.clear();
    },
  };
}
