import type { CheckpointStore, Position } from '@stagecraft/event-store';

export interface PacedCheckpoints extends CheckpointStore {
  /** Writes what the last skipped save asked for; call it once the runner has stopped, with its final position and view. */
  flush(position: Position, state: unknown): Promise<void>;
}

/**
 * One view's checkpoints, written at most once per `minGapMs`, and never more often than twenty times
 * the last write took: a view is saved whole, as JSON, and a runner asks for a save after every
 * batch and every lull. A skipped save costs only refolding after a crash: position and view are
 * still written together, so a restart neither repeats nor misses an event. Every write happens
 * inside a save the runner awaits, so the view cannot change while it is being written. A write that
 * fails (a view grown past what the store takes in one event, say) is reported and tried again after
 * the next gap; the view goes on being folded and answered.
 */
export function pacedCheckpoints(
  inner: CheckpointStore,
  minGapMs: number,
  now: () => number = () => performance.now(),
  onError: (error: unknown) => void = () => undefined,
): PacedCheckpoints {
  let lastWrite = Number.NEGATIVE_INFINITY;
  let gapMs = minGapMs;
  let skipped: { name: string; position: Position } | null = null;

  async function write<S>(name: string, position: Position, state: S): Promise<void> {
    const started = now();
    try {
      await inner.save(name, position, state);
      skipped = null;
    } catch (error) {
      skipped = { name, position };
      onError(error);
    }
    lastWrite = now();
    gapMs = Math.max(minGapMs, (lastWrite - started) * 20);
  }

  return {
    load: (name) => inner.load(name),
    async save(name, position, state) {
      if (now() - lastWrite < gapMs) skipped = { name, position };
      else await write(name, position, state);
    },
    async flush(position, state) {
      if (skipped && skipped.position <= position) await write(skipped.name, position, state);
    },
  };
}
