import type { CheckpointStore, Position } from '../port';

export function createMemoryCheckpointStore(): CheckpointStore {
  // Stored as JSON so a loaded state never aliases the runner's live one, as with the durable stores.
  const saved = new Map<string, { position: Position; state: string }>();
  return {
    async load<S>(name: string) {
      const entry = saved.get(name);
      return entry ? { position: entry.position, state: JSON.parse(entry.state) as S } : null;
    },
    async save<S>(name: string, position: Position, state: S) {
      saved.set(name, { position, state: JSON.stringify(state) });
    },
  };
}
