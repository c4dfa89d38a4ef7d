import { recordAppend, secondsSince, withSpan } from '@stagecraft/telemetry';
import type { EventStore } from './port';

/**
 * The same store, each append measured (latency, events) and, when tracing, a span of the caller's
 * trace. Everything else is the store's own: the wrapper inherits it.
 */
export function instrumentedStore<S extends EventStore>(store: S): S {
  const wrapped = Object.create(store) as S;
  wrapped.appendToStream = (stream, events, options) => {
    const started = performance.now();
    return withSpan('store append', { 'stagecraft.stream': stream, 'stagecraft.event_count': events.length, 'db.system': store.kind }, () =>
      store.appendToStream(stream, events, options).finally(() => recordAppend(store.kind, events.length, secondsSince(started))),
    );
  };
  return wrapped;
}
