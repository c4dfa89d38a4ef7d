import { ConcurrencyError } from '../errors';
import { expectStrictlyIncreasing, newEvents, uniqueStream, type ContractContext } from './fixtures';

export function appendAndReadContract(ctx: ContractContext): void {
  describe('append and read', () => {
    it('reads a stream that does not exist as empty', async () => {
      expect(await ctx.store().readStream(uniqueStream('missing'))).toEqual([]);
      expect(await ctx.store().readStream(uniqueStream('missing'), { direction: 'backwards' })).toEqual([]);
    });

    it('round-trips ids, types, data, metadata and revisions', async () => {
      const stream = uniqueStream('roundtrip');
      const events = newEvents(5);
      events[1].metadata = null;
      events[2].data = { text: 'héllo ✓ 😀', list: [1, 2.5, -3, [true, false]], empty: {} };
      const result = await ctx.store().appendToStream(stream, events, { expectedRevision: 'no_stream' });
      const read = await ctx.store().readStream(stream);

      expect(result.nextExpectedRevision).toBe(4n);
      expect(read.map((e) => e.revision)).toEqual([0n, 1n, 2n, 3n, 4n]);
      // The store adds the hash chain's link to the metadata (see chain.contract.ts); `null` metadata is stored as `{ chain }`.
      expect(read.map(({ id, type, data, metadata, streamId }) => ({ id, type, data, metadata, streamId }))).toEqual(
        events.map(({ id, type, data, metadata }) => ({
          id,
          type,
          data,
          metadata: { ...(metadata ?? {}), chain: { prev: expect.any(String), hash: expect.any(String) } },
          streamId: stream,
        })),
      );
      expect(read[4].position).toBe(result.position);
      expectStrictlyIncreasing(read.map((e) => e.position));
      expect(Number.isNaN(Date.parse(read[0].recordedAt))).toBe(false);
    });

    it('reads backwards, from a revision and up to maxCount', async () => {
      const stream = uniqueStream('window');
      await ctx.store().appendToStream(stream, newEvents(10));
      const revisions = async (options: Parameters<ReturnType<ContractContext['store']>['readStream']>[1]) =>
        (await ctx.store().readStream(stream, options)).map((e) => Number(e.revision));

      expect(await revisions({ direction: 'backwards' })).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
      expect(await revisions({ direction: 'backwards', fromRevision: 6n, maxCount: 3 })).toEqual([6, 5, 4]);
      expect(await revisions({ direction: 'backwards', maxCount: 2 })).toEqual([9, 8]);
      expect(await revisions({ fromRevision: 7n })).toEqual([7, 8, 9]);
      expect(await revisions({ fromRevision: 2n, maxCount: 2 })).toEqual([2, 3]);
      expect(await revisions({ fromRevision: 10n })).toEqual([]);
    });

    it('continues a stream with exact, stream_exists and any expectations', async () => {
      const stream = uniqueStream('continue');
      await ctx.store().appendToStream(stream, newEvents(2), { expectedRevision: 'no_stream' });
      expect((await ctx.store().appendToStream(stream, newEvents(2), { expectedRevision: 1n })).nextExpectedRevision).toBe(3n);
      expect((await ctx.store().appendToStream(stream, newEvents(1), { expectedRevision: 'stream_exists' })).nextExpectedRevision).toBe(4n);
      expect((await ctx.store().appendToStream(stream, newEvents(1), { expectedRevision: 'any' })).nextExpectedRevision).toBe(5n);
      expect((await ctx.store().appendToStream(stream, newEvents(1))).nextExpectedRevision).toBe(6n);
      expect((await ctx.store().readStream(stream)).map((e) => e.revision)).toEqual([0n, 1n, 2n, 3n, 4n, 5n, 6n]);
    });
  });

  describe('expected revision', () => {
    const refused = async (stream: string, expectedRevision: bigint | 'no_stream' | 'stream_exists', before: number) => {
      const attempt = ctx.store().appendToStream(stream, newEvents(1), { expectedRevision });
      await expect(attempt).rejects.toBeInstanceOf(ConcurrencyError);
      const error = (await attempt.catch((e: unknown) => e)) as ConcurrencyError;
      expect(await ctx.store().readStream(stream)).toHaveLength(before);
      return error;
    };

    it('refuses a wrong exact revision and appends nothing', async () => {
      const stream = uniqueStream('wrong');
      await ctx.store().appendToStream(stream, newEvents(3));
      const error = await refused(stream, 5n, 3);
      expect({ code: error.code, stream: error.stream, expected: error.expected, actual: error.actual }).toEqual({
        code: 'CONFLICT',
        stream,
        expected: 5n,
        actual: 2n,
      });
      await refused(stream, 1n, 3);
    });

    it('refuses no_stream on an existing stream', async () => {
      const stream = uniqueStream('exists');
      await ctx.store().appendToStream(stream, newEvents(1));
      expect((await refused(stream, 'no_stream', 1)).actual).toBe(0n);
    });

    it('refuses stream_exists and an exact revision on a missing stream', async () => {
      expect((await refused(uniqueStream('absent'), 'stream_exists', 0)).actual).toBe('no_stream');
      expect((await refused(uniqueStream('absent'), 0n, 0)).actual).toBe('no_stream');
    });

    it('lets exactly one of two concurrent appenders with the same expected revision win', async () => {
      for (let round = 0; round < 10; round += 1) {
        const stream = uniqueStream('race');
        await ctx.store().appendToStream(stream, newEvents(1), { expectedRevision: 'no_stream' });
        const [first, second] = [newEvents(2), newEvents(2)];
        const outcomes = await Promise.allSettled([
          ctx.store().appendToStream(stream, first, { expectedRevision: 0n }),
          ctx.store().appendToStream(stream, second, { expectedRevision: 0n }),
        ]);
        const winners = outcomes.filter((o) => o.status === 'fulfilled');
        const losers = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason] : []));
        expect(winners).toHaveLength(1);
        expect(losers).toHaveLength(1);
        expect(losers[0]).toBeInstanceOf(ConcurrencyError);
        const winner = outcomes[0].status === 'fulfilled' ? first : second;
        expect((await ctx.store().readStream(stream)).slice(1).map((e) => e.id)).toEqual(winner.map((e) => e.id));
      }
    });
  });

  describe('idempotent retries', () => {
    it('records a retried no_stream append once and returns the original result', async () => {
      const stream = uniqueStream('retry');
      const events = newEvents(3);
      const original = await ctx.store().appendToStream(stream, events, { expectedRevision: 'no_stream' });
      const retried = await ctx.store().appendToStream(stream, events, { expectedRevision: 'no_stream' });
      expect(retried).toEqual(original);
      expect((await ctx.store().readStream(stream)).map((e) => e.id)).toEqual(events.map((e) => e.id));
    });

    it('records a retried exact-revision append once even after the stream moved on', async () => {
      const stream = uniqueStream('retry');
      const head = await ctx.store().appendToStream(stream, newEvents(2), { expectedRevision: 'no_stream' });
      const batch = newEvents(2);
      const original = await ctx.store().appendToStream(stream, batch, { expectedRevision: head.nextExpectedRevision });
      await ctx.store().appendToStream(stream, newEvents(1), { expectedRevision: original.nextExpectedRevision });
      const retried = await ctx.store().appendToStream(stream, batch, { expectedRevision: head.nextExpectedRevision });
      expect(retried).toEqual(original);
      expect(await ctx.store().readStream(stream)).toHaveLength(5);
    });

    it('records a retried append with any once', async () => {
      const stream = uniqueStream('retry');
      await ctx.store().appendToStream(stream, newEvents(1));
      const batch = newEvents(2);
      const original = await ctx.store().appendToStream(stream, batch, { expectedRevision: 'any' });
      expect(await ctx.store().appendToStream(stream, batch, { expectedRevision: 'any' })).toEqual(original);
      expect((await ctx.store().readStream(stream)).slice(1).map((e) => e.id)).toEqual(batch.map((e) => e.id));
    });
  });
}
