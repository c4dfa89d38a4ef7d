import type { EventReader, Position, RecordedEvent } from '../port';

/** Events per read while catching up: large enough that a read's fixed cost vanishes, small enough to stay light. */
export const PAGE_SIZE = 1000;

export interface Page {
  events: RecordedEvent[];
  /**
   * On the last page, when asked for and the reader can tell: the head of the log just before that page
   * was read. Every event of the types up to it is in the pages, so a reader may pass over the rest.
   */
  headBefore?: Position;
}

/**
 * The log after `from` in pages, only the events of `types` (filtered by the engine, so the others are
 * never read or parsed), until a page comes back short. The last position reached is the last of those
 * events, which resumes the same; a reader that ignores `types` hands over the rest too, so callers still test each event.
 */
export async function* pagesAfter(
  reader: EventReader,
  from: Position | 'start',
  types: readonly string[] | undefined,
  options: { head?: boolean } = {},
): AsyncGenerator<Page> {
  const head = options.head && reader.headPosition ? () => reader.headPosition!() : undefined;
  let after = from;
  for (;;) {
    // Positions grow in commit order, so every event up to a head read first is in the page read after it.
    const headBefore = await head?.();
    const events = await reader.readAll({ fromPosition: after, maxCount: PAGE_SIZE, types });
    if (events.length === PAGE_SIZE) {
      after = events[events.length - 1].position;
      yield { events };
      continue;
    }
    if (events.length > 0 || headBefore !== undefined) yield { events, headBefore };
    return;
  }
}
