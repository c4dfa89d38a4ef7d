import { randomUUID } from 'node:crypto';
import type { KurrentDBClient, ReadStreamOptions } from '@kurrent/kurrentdb-client';
import { toEventData, toStagecraftError } from './mapping';
import type { CheckpointStore, Position, RecordedEvent } from '../port';

interface CheckpointSaved {
  position: string;
  state: unknown;
}

const keepLast = 10;

/**
 * Each save appends one event to `checkpoint-<name>` carrying position and state together; the
 * latest event wins. Stream metadata caps the stream so old checkpoints get scavenged.
 */
export function createKurrentDbCheckpointStore(
  client: KurrentDBClient,
  readStream: (stream: string, options: ReadStreamOptions) => Promise<RecordedEvent[]>,
  /** The server's hosts, named in errors. */
  address?: string,
): CheckpointStore {
  const capped = new Set<string>();
  return {
    async load<S>(name: string) {
      const [latest] = await readStream(`checkpoint-${name}`, { direction: 'backwards', fromRevision: 'end', maxCount: 1 });
      if (!latest) return null;
      const saved = latest.data as CheckpointSaved;
      return { position: BigInt(saved.position), state: saved.state as S };
    },
    async save<S>(name: string, position: Position, state: S) {
      const stream = `checkpoint-${name}`;
      const data: CheckpointSaved = { position: position.toString(), state };
      try {
        await client.appendToStream(stream, toEventData({ id: randomUUID(), type: 'CheckpointSaved', data, metadata: null }));
        if (!capped.has(stream)) {
          await client.setStreamMetadata(stream, { maxCount: keepLast });
          capped.add(stream);
        }
      } catch (error) {
        throw toStagecraftError(error, stream, 'any', address);
      }
    },
  };
}
