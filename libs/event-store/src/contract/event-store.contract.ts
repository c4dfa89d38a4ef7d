import type { EventStore } from '../port';
import { appendAndReadContract } from './append.contract';
import { hashChainContract } from './chain.contract';
import type { ContractContext } from './fixtures';
import { checkpointAndProjectionContract } from './projection.contract';
import { globalLogContract } from './subscription.contract';
import { volumeContract } from './volume.contract';

export interface EventStoreContractOptions {
  /** When set, every test is registered as skipped and the reason is in the suite name. */
  skipReason?: string;
}

/** The behaviour every adapter owes the port; each adapter's spec runs it in one line. */
export function describeEventStoreContract(
  name: string,
  factory: () => EventStore | Promise<EventStore>,
  options: EventStoreContractOptions = {},
): void {
  const register = options.skipReason ? describe.skip : describe;
  const title = options.skipReason ? `event store contract: ${name} (NOT RUN: ${options.skipReason})` : `event store contract: ${name}`;
  register(title, () => {
    let current: EventStore | undefined;
    const ctx: ContractContext = {
      store: () => {
        if (!current) throw new Error('no store: the contract runs inside its own beforeEach');
        return current;
      },
    };
    beforeEach(async () => {
      current = await factory();
    });
    afterEach(async () => {
      await current?.close();
      current = undefined;
    });

    appendAndReadContract(ctx);
    hashChainContract(ctx);
    globalLogContract(ctx);
    checkpointAndProjectionContract(ctx);
    volumeContract(ctx);
  });
}
