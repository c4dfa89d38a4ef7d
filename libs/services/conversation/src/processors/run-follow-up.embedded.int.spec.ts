import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { streams } from '@stagecraft/contracts';
import { EventStore, NewEvent, createSqliteEventStore } from '@stagecraft/event-store';
import { subscribeRunEvents } from '@stagecraft/messaging';
import { createOpenAiGateway } from '@stagecraft/model-gateway';
import { Host, startHost } from '@stagecraft/service-shell';
import pino from 'pino';
import { conversationServiceWith } from '../index';
import { RUN_FOLLOW_UP } from './run-follow-up';

/** The conversation service on its own, embedded: nothing here calls the model. */
const conversationOnly = () =>
  conversationServiceWith({
    resume: false,
    gateway: createOpenAiGateway({ baseURL: 'http://127.0.0.1:9', apiKey: 'unused', model: 'none', logger: pino({ level: 'silent' }) }),
  });
const start = (path: string) =>
  startHost({
    definitions: [conversationOnly()],
    transport: 'inproc',
    store: `sqlite:${path}`,
    config: { prefix: 'stagecraft', requestTimeoutMs: 5_000, logLevel: 'silent' },
  });

function runEvents(runId: string, conversationId: string): NewEvent[] {
  const metadata = { runId, conversationId, correlationId: runId, occurredAt: '2026-11-01T00:00:00.000Z' };
  return [
    {
      id: randomUUID(),
      type: 'RunStarted',
      data: { runId, conversationId, userMode: 'chat', reasoningEnabled: false, userInput: 'Hello?', projectRoot: '/tmp/p' },
      metadata,
    },
    { id: randomUUID(), type: 'RunCompleted', data: { deliveryState: 'DONE', answer: 'Hello.' }, metadata },
  ];
}

describe('the run follow-up in the embedded deployment', () => {
  let dir: string;
  let host: Host | undefined;

  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'stagecraft-follow-up-host-'))));
  afterEach(async () => {
    await host?.close();
    host = undefined;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('stores, at start-up and before it serves, the turn of a run completed while nothing followed the log', async () => {
    const path = join(dir, 'unfollowed.db');
    const before: EventStore = createSqliteEventStore({ path });
    const runId = `run-${randomUUID().slice(0, 8)}`;
    const conversationId = `conv-${randomUUID().slice(0, 8)}`;
    const { position } = await before.appendToStream(streams.run(runId), runEvents(runId, conversationId));
    await before.close();

    host = await start(path);
    const turn = await host.ports.store!.readStream(streams.conversation(conversationId));
    expect(turn.map((e) => (e.data as { content: string }).content)).toEqual(['Hello?', 'Hello.']);
    await host.close();
    host = undefined;
    const after = createSqliteEventStore({ path });
    expect((await after.checkpoints.load(RUN_FOLLOW_UP))?.position).toBeGreaterThanOrEqual(position);
    await after.close();
  });

  it('publishes a committed run event within a millisecond or so (commit → live feed, measured)', async () => {
    host = await start(join(dir, 'latency.db'));
    const { store, bus } = host.ports;
    const samples = { event: [] as number[], completion: [] as number[], append: [] as number[] };
    for (let i = 0; i < 200; i += 1) {
      const runId = `run-${i}-${randomUUID().slice(0, 8)}`;
      const [started, completed] = runEvents(runId, `conv-${runId}`);
      for (const [event, kind] of [
        [started, 'event'],
        [completed, 'completion'],
      ] as const) {
        let committing = 0;
        const arrived = new Promise<number>((resolve) => {
          const subscription = subscribeRunEvents(bus, 'stagecraft', runId, (e) => {
            if (e.id !== event.id) return;
            subscription.unsubscribe();
            resolve(performance.now() - committing);
          });
        });
        committing = performance.now();
        await store!.appendToStream(streams.run(runId), [event]);
        samples.append.push(performance.now() - committing);
        samples[kind].push(await arrived);
      }
    }
    const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
    const report = (xs: number[]) =>
      `p50 ${percentile(xs, 0.5).toFixed(3)} ms, p99 ${percentile(xs, 0.99).toFixed(3)} ms, max ${Math.max(...xs).toFixed(3)} ms`;
    console.log(
      `run feed latency, embedded sqlite, from the append call to the subscriber: plain event ${report(samples.event)}; ` +
        `RunCompleted with its turn ${report(samples.completion)}; the append alone ${report(samples.append)}`,
    );
    // Woken by the append itself, not by the 25 ms poll.
    expect(percentile(samples.event, 0.5)).toBeLessThan(5);
    expect(percentile(samples.completion, 0.5)).toBeLessThan(10);
  });
});
