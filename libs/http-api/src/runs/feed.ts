import { FeedEvent, streams, toFeedEvent } from '@stagecraft/contracts';
import type { EventReader } from '@stagecraft/event-store';

/** A run's public events, read from its stream: what its feed carried, each with its log position. */
export async function runFeed(log: EventReader, runId: string): Promise<(FeedEvent & { position: string })[]> {
  const stored = await log.readStream(streams.run(runId));
  return stored.flatMap((event) => {
    const shown = toFeedEvent(event as Parameters<typeof toFeedEvent>[0]);
    return shown ? [{ ...shown, position: String(event.position) }] : [];
  });
}
