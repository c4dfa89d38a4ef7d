import { CheckpointStore, createMemoryCheckpointStore } from '@stagecraft/event-store';

/**
 * Loads from `live` until something was saved here, and saves only here: a view caught up from the
 * services' checkpoint without ever writing it (the memory service owns its checkpoints).
 */
export function readOnlyCheckpoints(live: CheckpointStore): CheckpointStore {
  const own = createMemoryCheckpointStore();
  return {
    load: async <S>(name: string) => (await own.load<S>(name)) ?? live.load<S>(name),
    save: (name, position, state) => own.save(name, position, state),
  };
}
