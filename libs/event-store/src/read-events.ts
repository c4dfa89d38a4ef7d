import type { EventFamily, EventSchemas, EventUnion } from '@stagecraft/contracts';
import type { EventReader, Position, ReadStreamOptions } from './port';

/** A family's event as the store recorded it. */
export type Recorded<E> = E & { id: string; revision: bigint; position: Position; recordedAt: string };

/**
 * Reads a stream as the events of its family. Types outside the family are skipped; a type the
 * family renamed is read under its current name (docs/decisions/0015). The store is trusted to hold
 * what its writers validated, so this is the one place a stored event becomes a typed one, unparsed.
 * `maxCount` counts stored events, skipped ones included.
 */
export async function readEvents<S extends EventSchemas>(
  reader: EventReader,
  stream: string,
  family: EventFamily<S>,
  options?: ReadStreamOptions,
): Promise<Recorded<EventUnion<S>>[]> {
  const types = new Set<string>(family.types);
  const events: Recorded<EventUnion<S>>[] = [];
  for (const { id, revision, position, recordedAt, type: storedType, data, metadata } of await reader.readStream(stream, options)) {
    const type = Object.hasOwn(family.renamed, storedType) ? family.renamed[storedType] : storedType;
    if (types.has(type)) events.push({ type, data, metadata, id, revision, position, recordedAt } as Recorded<EventUnion<S>>);
  }
  return events;
}
