import { ConcurrencyError } from '../errors';
import { newEvents } from '../contract/fixtures';
import { describeEventStoreContract } from '../contract/event-store.contract';
import { createMemoryEventStore } from './memory-event-store';

describeEventStoreContract('memory', () => createMemoryEventStore());

describe('memory event store', () => {
  it('refuses a batch that repeats an earlier event of the stream out of place, appending nothing', async () => {
    const store = createMemoryEventStore();
    const [a, b, c] = newEvents(3);
    await store.appendToStream('s', [a, b]);
    await expect(store.appendToStream('s', [c, a])).rejects.toBeInstanceOf(ConcurrencyError);
    expect((await store.readStream('s')).map((e) => e.id)).toEqual([a.id, b.id]);
  });
});
