import { StagecraftEvent, streams } from '@stagecraft/contracts';
import { openEventStore } from '@stagecraft/event-store';
import { describeEvent } from './describe-event';

/** The timeline of one run, read straight from the log. */
export async function showRun(runId: string, store: string, json: boolean): Promise<boolean> {
  const events = await openEventStore(store);
  try {
    const stored = (await events.readStream(streams.run(runId))) as unknown as (StagecraftEvent & { recordedAt: string })[];
    if (stored.length === 0) {
      process.stderr.write(`stagecraft: no run ${runId} in ${store}\n`);
      return false;
    }
    const t0 = Date.parse(stored[0].metadata.occurredAt);
    for (const event of stored) {
      if (json) {
        process.stdout.write(`${JSON.stringify({ type: event.type, data: event.data, metadata: event.metadata })}\n`);
        continue;
      }
      const offset = `+${((Date.parse(event.metadata.occurredAt) - t0) / 1000).toFixed(3)}s`.padStart(10);
      process.stdout.write(`${offset}  ${event.type.padEnd(18)} ${describeEvent(event)?.trim() ?? ''}\n`);
    }
    return true;
  } finally {
    await events.close();
  }
}
