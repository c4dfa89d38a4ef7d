import { FeedEvent, streams, toFeedEvent } from '@stagecraft/contracts';
import type { EventReader, EventSubscription, Position } from '@stagecraft/event-store';

/** One SSE message: `id` the event's log position (what `Last-Event-ID` resumes after), `event` its feed type. */
export const sseMessage = (event: FeedEvent & { position: string }): string =>
  `id: ${event.position}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;

/** A comment line: keeps proxies and the browser from closing an idle stream. */
export const SSE_HEARTBEAT = ': heartbeat\n\n';

export interface FeedFollow extends AsyncIterable<FeedEvent & { position: string }> {
  close(): Promise<void>;
}

/**
 * Where a stream starts: right after `after` (a reconnect's Last-Event-ID); otherwise, for one run, at
 * its first event; for every run, at the end of the log (live only).
 */
async function startOf(log: EventReader, runId: string | undefined, after: string | undefined): Promise<Position | 'start'> {
  if (after !== undefined) return BigInt(after);
  const head = log.headPosition ? await log.headPosition() : 'start';
  if (runId === undefined) return head;
  // The head is read first: a run that starts after it is still in the stream read below, or after the head.
  const [first] = await log.readStream(streams.run(runId), { maxCount: 1 });
  return first ? first.position - 1n : head;
}

/** The public feed from the log, in log order, each event once: catch-up then live, as the store's subscription gives it. */
export async function followFeed(log: EventReader, options: { runId?: string; after?: string }): Promise<FeedFollow> {
  const stream = options.runId === undefined ? undefined : streams.run(options.runId);
  const from = await startOf(log, options.runId, options.after);
  const subscription: EventSubscription = log.subscribeToAll({
    fromPosition: from,
    filter: (event) => (stream === undefined ? event.streamId.startsWith('run-') : event.streamId === stream),
  });
  return {
    close: () => subscription.close(),
    async *[Symbol.asyncIterator]() {
      for await (const event of subscription) {
        const shown = toFeedEvent(event as Parameters<typeof toFeedEvent>[0]);
        if (shown) yield { ...shown, position: String(event.position) };
      }
    },
  };
}
