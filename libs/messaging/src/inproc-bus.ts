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
  const listeners = new Set<{ pattern: string; listener: BusListener }>();
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
      for (const { pattern, listener } of listeners) {
        if (subjectMatches(pattern, subject)) queueMicrotask(() => listener(message));
      }
    },
    subscribe(pattern, listener): BusSubscription {
      const entry = { pattern, listener };
      listeners.add(entry);
      return { unsubscribe: () => listeners.delete(entry) };
    },
    async flush() {},
    async close() {
      closed = true;
      responders.clear();
      listeners.clear();
    },
  };
}
