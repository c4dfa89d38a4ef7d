import {
  collect,
  expectStrictlyIncreasing,
  markLog,
  newEvents,
  readAllAfter,
  uniqueStream,
  uniqueType,
  type ContractContext,
} from './fixtures';

export function globalLogContract(ctx: ContractContext): void {
  describe('global log', () => {
    it('reads events after a position with strictly increasing positions, up to maxCount', async () => {
      const after = await markLog(ctx.store());
      const streams = [uniqueStream('all-a'), uniqueStream('all-b'), uniqueStream('all-c')];
      const appended: string[] = [];
      for (let i = 0; i < 9; i += 1) {
        const batch = newEvents(1 + (i % 2), 'ContractTested', i);
        await ctx.store().appendToStream(streams[i % 3], batch);
        appended.push(...batch.map((e) => e.id));
      }
      const read = await readAllAfter(ctx.store(), after, new Set(streams));
      expect(read.map((e) => e.id)).toEqual(appended);
      expectStrictlyIncreasing(read.map((e) => e.position));

      const firstThree = await ctx.store().readAll({ fromPosition: after, maxCount: 3 });
      expect(firstThree).toHaveLength(3);
      expect(firstThree.every((e) => e.position > after)).toBe(true);
      expectStrictlyIncreasing(firstThree.map((e) => e.position));
      const next = await ctx.store().readAll({ fromPosition: firstThree[2].position, maxCount: 1 });
      expect(next[0].position).toBeGreaterThan(firstThree[2].position);
    });

    it('reads only the given types, in log order, maxCount counting only those', async () => {
      const store = ctx.store();
      const after = await markLog(store);
      const [wanted, alsoWanted, other] = [uniqueType('Wanted'), uniqueType('AlsoWanted'), uniqueType('Other')];
      const stream = uniqueStream('typed');
      const batch = [
        ...newEvents(2, other),
        ...newEvents(2, wanted),
        ...newEvents(3, other),
        ...newEvents(1, alsoWanted),
        ...newEvents(2, wanted),
      ];
      await store.appendToStream(stream, batch);
      const ids = (types: string[]) => batch.filter((e) => types.includes(e.type)).map((e) => e.id);

      const read = await store.readAll({ fromPosition: after, types: [wanted, alsoWanted] });
      expect(read.map((e) => e.id)).toEqual(ids([wanted, alsoWanted]));
      expectStrictlyIncreasing(read.map((e) => e.position));
      const firstTwo = await store.readAll({ fromPosition: after, maxCount: 2, types: [alsoWanted, wanted] });
      expect(firstTwo.map((e) => e.id)).toEqual(ids([wanted]).slice(0, 2));
      const rest = await store.readAll({ fromPosition: firstTwo[1].position, maxCount: 10, types: [wanted, alsoWanted] });
      expect(rest.map((e) => e.id)).toEqual(ids([wanted, alsoWanted]).slice(2));
      expect(await store.readAll({ fromPosition: after, types: [] })).toEqual([]);
    });
  });

  describe('subscribeToAll', () => {
    it('catches up, then goes live, delivering every event once in global order', async () => {
      const store = ctx.store();
      const after = await markLog(store);
      const streams = [uniqueStream('sub-a'), uniqueStream('sub-b')];
      const ours = new Set(streams);
      for (let i = 0; i < 6; i += 1) await store.appendToStream(streams[i % 2], newEvents(50, 'ContractTested', i * 50));

      const subscription = store.subscribeToAll({ fromPosition: after, filter: (e) => ours.has(e.streamId) });
      const iterator = subscription[Symbol.asyncIterator]();
      const received = await collect(iterator, 10);
      // Appended while the subscription is still catching up on the first 300.
      const duringCatchUp = (async () => {
        for (let i = 0; i < 20; i += 1) await store.appendToStream(streams[i % 2], newEvents(10, 'ContractTested', 1000 + i * 10));
      })();
      received.push(...(await collect(iterator, 290 + 200)));
      await duringCatchUp;
      for (let i = 0; i < 5; i += 1) {
        await store.appendToStream(streams[i % 2], newEvents(10, 'ContractTested', 2000 + i * 10));
        received.push(...(await collect(iterator, 10)));
      }
      await subscription.close();

      const log = await readAllAfter(store, after, ours);
      expect(log).toHaveLength(550);
      expect(received.map((e) => e.id)).toEqual(log.map((e) => e.id));
      expect(new Set(received.map((e) => e.id)).size).toBe(550);
      expectStrictlyIncreasing(received.map((e) => e.position));
    });

    it('starts after the given position and ends iteration when closed', async () => {
      const store = ctx.store();
      const stream = uniqueStream('sub-from');
      const first = await store.appendToStream(stream, newEvents(3));
      const later = newEvents(2);
      await store.appendToStream(stream, later);
      const subscription = store.subscribeToAll({ fromPosition: first.position, filter: (e) => e.streamId === stream });
      const iterator = subscription[Symbol.asyncIterator]();
      expect((await collect(iterator, 2)).map((e) => e.id)).toEqual(later.map((e) => e.id));
      const pending = iterator.next();
      await subscription.close();
      expect((await pending).done).toBe(true);
    });
  });
}
