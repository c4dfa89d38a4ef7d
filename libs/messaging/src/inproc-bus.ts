import { answer, faultReporter, guarded } from './answer';
import {
  BusListener,
  BusMessage,
  BusOptions,
  BusResponder,
  BusSubscription,
  DEFAULT_MAX_PAYLOAD,
  Headers,
  LocalDispatch,
  LocalResponder,
  MessageBus,
} from './bus';
import { NoRespondersError, PayloadTooLargeError } from './errors';
import { subjectMatches } from './subject-match';
import { withinTimeout } from './timeout';
import { refuseOversized, wireBytes } from './wire-size';

/** Several responders on one subject take turns, as a NATS queue group does. */
function roundRobin<T>() {
  const entries = new Map<string, T[]>();
  let turn = 0;
  return {
    add(subject: string, entry: T): BusSubscription {
      entries.set(subject, [...(entries.get(subject) ?? []), entry]);
      return {
        unsubscribe: () =>
          entries.set(
            subject,
            (entries.get(subject) ?? []).filter((e) => e !== entry),
          ),
      };
    },
    pick(subject: string): T | undefined {
      const group = entries.get(subject);
      return group && group.length > 0 ? group[turn++ % group.length] : undefined;
    },
    clear: () => entries.clear(),
  };
}

/**
 * The embedded transport: one process, same subjects and JSON bodies as NATS. Bodies stay strings,
 * so no object is shared between caller and handler; request/reply between services also has the
 * `local` lane, where the handler's own validation does the copying instead of JSON. Text bodies
 * obey NATS's `max_payload` rule byte for byte, so embedded and distributed refuse the same messages.
 */
export function createInprocBus(options: BusOptions = {}): MessageBus {
  const maxPayload = options.maxPayload ?? DEFAULT_MAX_PAYLOAD;
  const report = faultReporter(options.onError);
  // The queue name needs no bookkeeping here: every responder of a subject shares one group in process.
  const responders = roundRobin<BusResponder>();
  const locals = roundRobin<LocalResponder>();
  // Exact subjects are looked up directly; only wildcard patterns are matched one by one.
  const exact = new Map<string, Set<BusListener>>();
  const wildcards = new Set<{ pattern: string; listener: BusListener }>();
  let closed = false;

  const local: LocalDispatch = {
    respond: (subject, responder) => locals.add(subject, responder),
    find: (subject) => (closed ? undefined : locals.pick(subject)),
  };

  return {
    kind: 'inproc',
    maxPayload,
    local,
    reportFault: report,
    async request(subject, body, { headers = {}, timeoutMs }) {
      refuseOversized(subject, body, headers, maxPayload);
      const target = closed ? undefined : responders.pick(subject);
      if (!target) throw new NoRespondersError(subject);
      const reply = await withinTimeout(subject, timeoutMs, answer(target, { subject, body, headers }, maxPayload, report));
      return { subject, body: reply.body, headers: reply.headers ?? {} };
    },
    respond(subject, _queue, responder) {
      return responders.add(subject, responder);
    },
    publish(subject, body, headers: Headers = {}) {
      if (closed) return;
      const bytes = wireBytes(body, headers);
      if (bytes > maxPayload)
        return report({ during: 'publish', subject, error: new PayloadTooLargeError(subject, 'message', bytes, maxPayload) });
      const message: BusMessage = { subject, body, headers };
      for (const listener of exact.get(subject) ?? []) queueMicrotask(() => listener(message));
      for (const { pattern, listener } of wildcards) {
        if (subjectMatches(pattern, subject)) queueMicrotask(() => listener(message));
      }
    },
    subscribe(pattern, unguarded): BusSubscription {
      // A throw inside queueMicrotask would be an uncaught exception: the guard keeps it a fault. The
      // guard is also a new function per subscription, so the same listener subscribed twice is two.
      const listener = guarded(unguarded, report);
      if (pattern.includes('*') || pattern.includes('>')) {
        const entry = { pattern, listener };
        wildcards.add(entry);
        return { unsubscribe: () => wildcards.delete(entry) };
      }
      const set = exact.get(pattern) ?? new Set<BusListener>();
      set.add(listener);
      exact.set(pattern, set);
      return {
        unsubscribe: () => {
          set.delete(listener);
          if (set.size === 0 && exact.get(pattern) === set) exact.delete(pattern);
        },
      };
    },
    async flush() {},
    async close() {
      closed = true;
      responders.clear();
      locals.clear();
      exact.clear();
      wildcards.clear();
    },
  };
}
