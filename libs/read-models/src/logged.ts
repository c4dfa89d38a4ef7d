import type { EventMetadata, RecordedEvent, RunEvent } from '@stagecraft/contracts';

/** A stored event read as one of its family's typed events. */
export type Logged<E> = Omit<RecordedEvent, 'type' | 'data' | 'metadata'> & E & { metadata: EventMetadata };

const RUN_STREAM = 'run-';

/**
 * The run event it is, with the run's id (from its stream name); null for an event of any other stream,
 * such as a `MessageAppended` on a conversation or a tool-call stream's older names. Writers validated
 * every stored event, so this is a cast.
 */
export function runEventOf(event: RecordedEvent): { runId: string; event: Logged<RunEvent> } | null {
  if (!event.streamId.startsWith(RUN_STREAM)) return null;
  return { runId: event.streamId.slice(RUN_STREAM.length), event: event as Logged<RunEvent> };
}

/** The entry under `key`, own entries only: `constructor` is a valid id, and must not find Object's. */
export const entryOf = <T>(record: Readonly<Record<string, T>>, key: string): T | undefined =>
  Object.hasOwn(record, key) ? record[key] : undefined;
