/**
 * Every view the next turn, the CLI and UIs read, each a pure fold over typed events
 * (docs/decisions/0017): run by the memory service from a checkpoint and rebuilt from zero by
 * `stagecraft replay`.
 */
export type { LoggedEvent, ReadModel } from './read-model';
