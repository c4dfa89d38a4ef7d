import { setTimeout as sleep } from 'node:timers/promises';
import { ConcurrencyError } from '../errors';
import type { EventStore } from '../port';

export interface RaceResult {
  side: string;
  won: number[];
  conflicts: number;
  ownIds: string[];
  raceIds: Record<number, string>;
}

export interface RaceOptions {
  ownStream: string;
  raceStream: string;
  slots: number;
  /** Slots below this alternate: the side whose turn it is appends first, the other appends after it with the same expectation. */
  scriptedSlots: number;
  side: 'parent' | 'child';
  newId: () => string;
}

/**
 * Test driver run by both processes of the cross-process test. Every slot k is attempted by both
 * sides with expected revision k-1, so exactly one can win it. Scripted slots make each side lose
 * deterministically half the time; the rest are a free race.
 */
export async function raceForSlots(store: EventStore, options: RaceOptions): Promise<RaceResult> {
  const result: RaceResult = { side: options.side, won: [], conflicts: 0, ownIds: [], raceIds: {} };
  for (let slot = 0; slot < options.slots; slot += 1) {
    await waitForLength(store, options.raceStream, slot);
    const myTurn = (slot % 2 === 0) === (options.side === 'parent');
    if (slot < options.scriptedSlots && !myTurn) await waitForLength(store, options.raceStream, slot + 1);
    const id = options.newId();
    result.raceIds[slot] = id;
    try {
      const expectedRevision = slot === 0 ? 'no_stream' : BigInt(slot - 1);
      await store.appendToStream(options.raceStream, [{ id, type: 'SlotTaken', data: { slot, side: options.side }, metadata: null }], {
        expectedRevision,
      });
      result.won.push(slot);
    } catch (error) {
      if (!(error instanceof ConcurrencyError)) throw error;
      result.conflicts += 1;
    }
    const own = options.newId();
    await store.appendToStream(options.ownStream, [{ id: own, type: 'SideWrote', data: { slot, side: options.side }, metadata: null }]);
    result.ownIds.push(own);
  }
  return result;
}

async function waitForLength(store: EventStore, stream: string, length: number): Promise<void> {
  for (;;) {
    const [last] = await store.readStream(stream, { direction: 'backwards', maxCount: 1 });
    if ((last ? Number(last.revision) + 1 : 0) >= length) return;
    await sleep(1);
  }
}
