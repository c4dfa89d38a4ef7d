/** The views clients and the next turn read (history, reasoning outcomes, runs, memories, the codebase index), each a pure fold. */
/*
 * Every view the next turn, the CLI and UIs read, each a pure fold over typed events
 * (docs/decisions/0017): run by the memory service from a checkpoint and rebuilt from zero by
 * `stagecraft replay`.
 */
import type { Projection } from '@stagecraft/contracts';
import { codebaseIndexModel } from './codebase-index';
import { historyModel } from './history';
import { memoriesModel } from './memories';
import { reasoningOutcomeModel } from './reasoning-outcome';
import { runsModel } from './runs';

/** A read model is a `Projection` of the contracts (the event store runs the same type); the name is kept for its users. */
export type ReadModel<S> = Projection<S>;
export { entryOf } from './logged';
export * from './codebase-index';
export * from './history';
export * from './memories';
export * from './reasoning-outcome';
export * from './runs';

/** Every read model, each kept by the memory service under its own checkpoint. */
export const READ_MODELS: readonly Projection<unknown>[] = [
  reasoningOutcomeModel,
  runsModel,
  historyModel,
  memoriesModel,
  codebaseIndexModel,
];
