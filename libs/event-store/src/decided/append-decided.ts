import { EventType, StagecraftError, eventDataSchemas, issuesFromZod } from '@stagecraft/contracts';
import type { Decided } from '@stagecraft/decider';
import { ConcurrencyError } from '../errors';
import type { EventStore, ExpectedRevision } from '../port';

export interface AppendDecidedOptions<Event extends Decided> {
  /** What the stream holds, for messages: `run 1234`, `workflow abcd`. */
  what: string;
  expectedRevision: ExpectedRevision;
  /** The id of the commit's `index`-th event: a fresh one, or one derived from the event where a retry must not store it twice. */
  newId(event: Event, index: number): string;
  /** The metadata of the commit's `index`-th event. */
  metadata(event: Event, index: number): Record<string, unknown>;
}

/**
 * Validates a decision's events against their contract, then appends them as one commit at the
 * expected revision; another writer in between is a `CONFLICT` naming the stream. An event that fails
 * its schema is a bug of the decider (`INTERNAL`) and nothing is appended. Returns the next expected revision.
 */
export async function appendDecided<Event extends Decided>(
  store: Pick<EventStore, 'appendToStream'>,
  stream: string,
  events: readonly Event[],
  options: AppendDecidedOptions<Event>,
): Promise<bigint | null> {
  if (events.length === 0) return typeof options.expectedRevision === 'bigint' ? options.expectedRevision : null;
  const stored = events.map((event, i) => ({
    id: options.newId(event, i),
    type: event.type,
    data: validData(event, options.what),
    metadata: options.metadata(event, i),
  }));
  try {
    return (await store.appendToStream(stream, stored, { expectedRevision: options.expectedRevision })).nextExpectedRevision;
  } catch (error) {
    if (error instanceof ConcurrencyError)
      throw new StagecraftError('CONFLICT', `${options.what} was changed by another writer`, [], { cause: error });
    throw error;
  }
}

/** The event's data as its schema parses it (defaults filled, unknown keys dropped), or `INTERNAL`. */
export function validData(event: Decided, what: string): unknown {
  const schema = Object.hasOwn(eventDataSchemas, event.type) ? eventDataSchemas[event.type as EventType] : undefined;
  if (!schema) throw new StagecraftError('INTERNAL', `${what} produced an event of unknown type ${event.type}`);
  const parsed = schema.safeParse(event.data);
  if (!parsed.success)
    throw new StagecraftError('INTERNAL', `${what} produced an invalid ${event.type} event`, issuesFromZod(parsed.error));
  return parsed.data;
}
