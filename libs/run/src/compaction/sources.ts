import { EventRange, EventRef } from '@stagecraft/contracts';

/** The events as one range per stream (first to last), in the order the streams were first seen. */
export function rangesOf(refs: readonly (EventRef | EventRange)[]): EventRange[] {
  const byStream = new Map<string, EventRange>();
  for (const ref of refs) {
    const from = 'revision' in ref ? ref.revision : ref.from;
    const to = 'revision' in ref ? ref.revision : ref.to;
    const seen = byStream.get(ref.stream);
    byStream.set(
      ref.stream,
      seen ? { stream: ref.stream, from: Math.min(seen.from, from), to: Math.max(seen.to, to) } : { stream: ref.stream, from, to },
    );
  }
  return [...byStream.values()];
}
