import { createMemoryEventStore } from '../memory/memory-event-store';
import { newEvents } from '../contract/fixtures';
import type { RecordedEvent } from '../port';
import { chainOf, streamGenesis } from './chain';
import { describeChainBreak, verifyLogChain, verifyStreamChain } from './verify-chain';

/** A chained stream as the memory store writes it; each test then tampers with a copy. */
async function chainedStream(stream = 'run-1', count = 5): Promise<RecordedEvent[]> {
  const store = createMemoryEventStore();
  await store.appendToStream(stream, newEvents(2, 'ToolExecutionStarted'));
  await store.appendToStream(stream, newEvents(count - 2, 'ToolExecutionCompleted', 2));
  return store.readStream(stream);
}

const withoutChain = (event: RecordedEvent): RecordedEvent => {
  const { chain: _chain, ...metadata } = event.metadata as Record<string, unknown>;
  return { ...event, metadata };
};

describe('hash chain verification', () => {
  it('passes an untouched stream, every event chained', async () => {
    const report = verifyStreamChain(await chainedStream());
    expect(report).toEqual({ streams: 1, events: 5, chained: 5, unchained: 0, breaks: [] });
  });

  it('names the event whose data was edited, with the recomputed and the stored hash', async () => {
    const events = await chainedStream();
    events[3] = { ...events[3], data: { ...(events[3].data as object), label: 'rewritten' } };
    const [broken] = verifyStreamChain(events).breaks;
    expect(broken).toMatchObject({ stream: 'run-1', revision: 3n, type: 'ToolExecutionCompleted', problem: 'content-mismatch' });
    expect(broken.found).toBe(chainOf(events[3].metadata)?.hash);
    expect(broken.expected).not.toBe(broken.found);
    expect(describeChainBreak(broken)).toMatch(
      /^stream run-1: revision 3 \(ToolExecutionCompleted\) breaks the hash chain: its content was changed after it was appended; expected [\w-]{12}…, found [\w-]{12}…$/,
    );
  });

  it('finds edited metadata, type and id', async () => {
    const events = await chainedStream();
    const edits: ((e: RecordedEvent) => RecordedEvent)[] = [
      (e) => ({ ...e, metadata: { ...(e.metadata as object), occurredAt: '2030-01-01T00:00:00.000Z' } }),
      (e) => ({ ...e, type: 'ToolExecutionFailed' }),
      (e) => ({ ...e, id: '00000000-0000-4000-8000-000000000000' }),
    ];
    for (const edit of edits) {
      const tampered = events.map((e, i) => (i === 2 ? edit(e) : e));
      expect(verifyStreamChain(tampered).breaks.map((b) => [b.revision, b.problem])).toEqual([[2n, 'content-mismatch']]);
    }
  });

  it('finds a deleted event by the missing revision, and by the broken link when revisions were renumbered', async () => {
    const events = await chainedStream();
    const deleted = events.filter((e) => e.revision !== 1n);
    expect(verifyStreamChain(deleted).breaks).toEqual([
      expect.objectContaining({ revision: 2n, problem: 'missing-revision', expected: 'revision 1', found: 'revision 2' }),
    ]);
    const renumbered = deleted.map((e, i) => ({ ...e, revision: BigInt(i) }));
    expect(verifyStreamChain(renumbered).breaks).toEqual([
      expect.objectContaining({
        revision: 1n,
        type: 'ToolExecutionCompleted',
        problem: 'prev-mismatch',
        expected: chainOf(events[0].metadata)?.hash,
      }),
    ]);
  });

  it('finds two events swapped', async () => {
    const events = await chainedStream();
    const swapped = [events[0], { ...events[2], revision: 1n }, { ...events[1], revision: 2n }, events[3], events[4]];
    expect(verifyStreamChain(swapped).breaks.map((b) => [b.revision, b.problem])).toEqual([[1n, 'prev-mismatch']]);
  });

  it('finds an event moved into another stream', async () => {
    const [moved] = await chainedStream('run-2', 3);
    const report = verifyStreamChain([{ ...moved, streamId: 'run-1' }]);
    expect(report.breaks).toEqual([
      expect.objectContaining({ problem: 'prev-mismatch', expected: streamGenesis('run-1'), found: streamGenesis('run-2') }),
    ]);
  });

  it('counts a stream written before chaining as unchained, not broken, and verifies what was chained after it', async () => {
    const store = createMemoryEventStore();
    await store.appendToStream('run-1', newEvents(3));
    const legacy = (await store.readStream('run-1')).map(withoutChain);
    const later = createMemoryEventStore();
    await later.appendToStream('run-1', newEvents(2, 'After', 3));
    const continued = (await later.readStream('run-1')).map((e) => ({ ...e, revision: e.revision + 3n }));

    expect(verifyStreamChain(legacy)).toMatchObject({ chained: 0, unchained: 3, breaks: [] });
    expect(verifyStreamChain([...legacy, ...continued])).toMatchObject({ chained: 2, unchained: 3, breaks: [] });
  });

  it('refuses a link stripped off after the stream was chained', async () => {
    const events = await chainedStream();
    events[4] = withoutChain(events[4]);
    expect(verifyStreamChain(events).breaks.map((b) => [b.revision, b.problem])).toEqual([[4n, 'unchained']]);
  });

  it('refuses a whole stream stripped of its links when it comes after chaining began in the log', async () => {
    const store = createMemoryEventStore();
    await store.appendToStream('run-1', newEvents(2));
    await store.appendToStream('run-2', newEvents(2));
    const log = await store.readAll();
    const stripped = log.map((e) => (e.streamId === 'run-2' ? withoutChain(e) : e));
    const report = await verifyLogChain({
      readAll: async (o) => stripped.filter((e) => o?.fromPosition === 'start' || e.position > (o?.fromPosition as bigint)),
    });

    expect(report.breaks).toEqual([expect.objectContaining({ stream: 'run-2', revision: 0n, problem: 'unchained' })]);
  });

  it('reads the whole log a page at a time, reporting the first break of each broken stream in log order', async () => {
    const store = createMemoryEventStore();
    for (let i = 0; i < 5; i += 1) await store.appendToStream(`run-${i % 2}`, newEvents(3, 'E', i * 3));
    expect(await verifyLogChain(store, { pageSize: 4 })).toEqual({ streams: 2, events: 15, chained: 15, unchained: 0, breaks: [] });
  });
});
