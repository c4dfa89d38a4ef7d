import { NatsServerHandle, startNatsServer } from '@stagecraft/testing';
import { MessageBus } from './bus';
import { createInprocBus } from './inproc-bus';
import { connectNatsBus } from './nats-bus';
import { RunFeedEvent, StoredRunEvent, publishRunEvent } from './publish';
import { followRunEvents, retainRunEvents } from './run-events-stream';

const prefix = 'replaytest';
const at = '2026-11-01T00:00:00.000Z';

const event = (runId: string, n: number, type: 'StageEntered' | 'RunCompleted' = 'StageEntered'): StoredRunEvent =>
  ({
    id: `${runId}-e${n}`,
    position: String(n),
    type,
    data:
      type === 'RunCompleted'
        ? { answer: 'done', deliveryState: 'DONE' }
        : { stage: 'warmup', iteration: n, contextId: `${runId}/warmup/001/2026-11-01T00:00:00Z` },
    metadata: { runId, occurredAt: at },
  }) as StoredRunEvent;

async function collect(source: AsyncIterable<RunFeedEvent>, max = 100): Promise<string[]> {
  const ids: string[] = [];
  for await (const e of source) {
    ids.push(e.id ?? '?');
    if (ids.length >= max) break;
  }
  return ids;
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

function describeReplay(name: string, open: () => Promise<{ publisher: MessageBus; follower: MessageBus; close(): Promise<void> }>) {
  describe(`run events for late subscribers: ${name}`, () => {
    let publisher: MessageBus;
    let follower: MessageBus;
    let close: () => Promise<void>;

    beforeAll(async () => {
      ({ publisher, follower, close } = await open());
      await retainRunEvents(publisher, prefix);
      // A second replica (or a restart) finds the stream made and keeps it.
      await retainRunEvents(follower, prefix);
    });
    afterAll(async () => close?.());

    it('a subscriber that comes after the run ended reads it from its start, each event once, and stops at its end', async () => {
      const runId = 'late-1';
      for (const n of [0, 1, 2]) publishRunEvent(publisher, prefix, event(runId, n));
      // The feed repeats what followed a processor's last checkpoint after a restart.
      publishRunEvent(publisher, prefix, event(runId, 1));
      publishRunEvent(publisher, prefix, event(runId, 3, 'RunCompleted'));
      publishRunEvent(publisher, prefix, event('other-run', 0));
      await publisher.flush();
      await settle();
      expect(await collect(followRunEvents(follower, prefix, runId))).toEqual(['late-1-e0', 'late-1-e1', 'late-1-e2', 'late-1-e3']);
    });

    it('a subscriber that comes mid-run replays what it missed, then follows live', async () => {
      const runId = 'mid-1';
      publishRunEvent(publisher, prefix, event(runId, 0));
      publishRunEvent(publisher, prefix, event(runId, 1));
      await publisher.flush();
      await settle();
      const following = collect(followRunEvents(follower, prefix, runId));
      await settle();
      publishRunEvent(publisher, prefix, event(runId, 1));
      publishRunEvent(publisher, prefix, event(runId, 2));
      publishRunEvent(publisher, prefix, event(runId, 3, 'RunCompleted'));
      await publisher.flush();
      expect(await following).toEqual(['mid-1-e0', 'mid-1-e1', 'mid-1-e2', 'mid-1-e3']);
    });

    it('with untilEnd false it follows past the end until the caller stops', async () => {
      const runId = 'open-1';
      publishRunEvent(publisher, prefix, event(runId, 0, 'RunCompleted'));
      publishRunEvent(publisher, prefix, event(runId, 1));
      await publisher.flush();
      await settle();
      expect(await collect(followRunEvents(follower, prefix, runId, { untilEnd: false }), 2)).toEqual(['open-1-e0', 'open-1-e1']);
    });

    it('refuses with UNAVAILABLE where nothing keeps the feed, instead of silently missing its start', async () => {
      await expect(collect(followRunEvents(follower, 'unretained', 'x'))).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    });
  });
}

describeReplay('in process', async () => {
  const bus = createInprocBus();
  return { publisher: bus, follower: bus, close: () => bus.close() };
});

let server: NatsServerHandle;
describeReplay('NATS JetStream (real nats-server)', async () => {
  server = await startNatsServer();
  const publisher = await connectNatsBus(server.url, 'feed-publisher');
  const follower = await connectNatsBus(server.url, 'feed-follower');
  return {
    publisher,
    follower,
    async close() {
      await publisher.close();
      await follower.close();
      await server.stop();
    },
  };
});
