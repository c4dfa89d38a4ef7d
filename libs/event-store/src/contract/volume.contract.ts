import { expectStrictlyIncreasing, markLog, newEvents, readAllAfter, uniqueStream, type ContractContext } from './fixtures';

export function volumeContract(ctx: ContractContext): void {
  describe('volume', () => {
    it('round-trips a 1 MB event', async () => {
      const stream = uniqueStream('large');
      // 1,000,000 characters of data, a few of them multi-byte, kept under KurrentDB's default 1 MiB append limit.
      const text = 'é✓'.repeat(1_000) + 'x'.repeat(1_000_000 - 2_000);
      const [event] = newEvents(1);
      event.data = { text, length: text.length };
      await ctx.store().appendToStream(stream, [event], { expectedRevision: 'no_stream' });
      const [read] = await ctx.store().readStream(stream);
      expect((read.data as { text: string }).text.length).toBe(1_000_000);
      expect(read.data).toEqual(event.data);
    });

    it('appends 10,000 events in batches and replays them in order', async () => {
      const store = ctx.store();
      const after = await markLog(store);
      const stream = uniqueStream('bulk');
      const ids: string[] = [];
      let expectedRevision: bigint | 'no_stream' = 'no_stream';
      for (let batch = 0; batch < 10; batch += 1) {
        const events = newEvents(1_000, 'ContractBulk', batch * 1_000);
        ids.push(...events.map((e) => e.id));
        expectedRevision = (await store.appendToStream(stream, events, { expectedRevision })).nextExpectedRevision;
      }
      expect(expectedRevision).toBe(9_999n);

      const replayed = await store.readStream(stream);
      expect(replayed.map((e) => e.id)).toEqual(ids);
      expect(replayed.every((e, i) => e.revision === BigInt(i) && (e.data as { index: number }).index === i)).toBe(true);
      const log = await readAllAfter(store, after, new Set([stream]));
      expect(log.map((e) => e.id)).toEqual(ids);
      expectStrictlyIncreasing(log.map((e) => e.position));
    }, 120_000);
  });
}
