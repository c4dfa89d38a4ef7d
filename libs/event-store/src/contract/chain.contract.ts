import { chainOf, streamGenesis } from '../chain/chain';
import { verifyStreamChain } from '../chain/verify-chain';
import { newEvents, uniqueStream, type ContractContext } from './fixtures';

/** Every adapter chains every stream as it appends (docs/decisions/0037); these hold whatever the engine. */
export function hashChainContract(ctx: ContractContext): void {
  describe('hash chain', () => {
    const links = async (stream: string) => (await ctx.store().readStream(stream)).map((e) => chainOf(e.metadata));

    it('links each event to the one before it, the first to the stream name, across appends of every expectation', async () => {
      const stream = uniqueStream('chain');
      await ctx.store().appendToStream(stream, newEvents(2), { expectedRevision: 'no_stream' });
      await ctx.store().appendToStream(stream, newEvents(1), { expectedRevision: 1n });
      await ctx.store().appendToStream(stream, newEvents(2), { expectedRevision: 'stream_exists' });
      await ctx.store().appendToStream(stream, newEvents(1), { expectedRevision: 'any' });
      const chain = await links(stream);

      expect(chain).toHaveLength(6);
      expect(chain[0]?.prev).toBe(streamGenesis(stream));
      chain.slice(1).forEach((link, i) => expect(link?.prev).toBe(chain[i]?.hash));
      expect(new Set(chain.map((l) => l?.hash)).size).toBe(6);
      const report = verifyStreamChain(await ctx.store().readStream(stream));
      expect({ chained: report.chained, unchained: report.unchained, breaks: report.breaks }).toEqual({
        chained: 6,
        unchained: 0,
        breaks: [],
      });
    });

    it('starts two streams with the same events on different links', async () => {
      const events = newEvents(1);
      const [a, b] = [uniqueStream('chain-a'), uniqueStream('chain-b')];
      await ctx.store().appendToStream(a, events);
      await ctx.store().appendToStream(b, events);
      const [[first], [second]] = await Promise.all([links(a), links(b)]);
      expect(first?.hash).not.toBe(second?.hash);
    });

    it('keeps one chain when appenders race and when a batch is retried', async () => {
      const stream = uniqueStream('chain-race');
      const retried = newEvents(2);
      await ctx.store().appendToStream(stream, retried);
      await Promise.allSettled(
        Array.from({ length: 6 }, () => ctx.store().appendToStream(stream, newEvents(2), { expectedRevision: 'any' })),
      );
      await ctx.store().appendToStream(stream, retried, { expectedRevision: 'any' });
      const read = await ctx.store().readStream(stream);

      expect(read).toHaveLength(14);
      expect(verifyStreamChain(read).breaks).toEqual([]);
    });

    it('gives a copied event a link of its own stream, whatever link it came with', async () => {
      const [source, copy] = [uniqueStream('chain-source'), uniqueStream('chain-copy')];
      await ctx.store().appendToStream(source, newEvents(1));
      const [original] = await ctx.store().readStream(source);
      await ctx.store().appendToStream(copy, [{ id: original.id, type: original.type, data: original.data, metadata: original.metadata }]);
      const [copied] = await ctx.store().readStream(copy);

      expect(chainOf(copied.metadata)?.prev).toBe(streamGenesis(copy));
      expect(verifyStreamChain([copied]).breaks).toEqual([]);
    });

    it('refuses metadata that cannot carry a link, appending nothing', async () => {
      const stream = uniqueStream('chain-refused');
      const [event] = newEvents(1);
      for (const metadata of [['a'], 'text', 7, false]) {
        const attempt = ctx.store().appendToStream(stream, [{ ...event, metadata }]);
        await expect(attempt).rejects.toMatchObject({
          code: 'VALIDATION',
          issues: [{ path: ['events', 0, 'metadata'], message: 'event metadata must be a JSON object (or null)' }],
        });
      }
      expect(await ctx.store().readStream(stream)).toEqual([]);
    });
  });
}
