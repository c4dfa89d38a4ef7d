import { randomUUID } from 'node:crypto';
import type { KurrentDBClient, ReadStreamOptions } from '@kurrent/kurrentdb-client';
import { toEventData, toStagecraftError } from './mapping';
import { checkpointsInPieces, type CheckpointHead, type CheckpointRecords } from '../checkpoints/checkpoints-in-pieces';
import type { PiecesRef } from '../checkpoints/pieces';
import type { CheckpointStore, RecordedEvent } from '../port';

/** A head written as one document (every head before pieces, and every small one since). */
interface CheckpointSaved {
  position: string;
  state: unknown;
}

/** A head naming its pieces. */
interface CheckpointPiecesSaved {
  position: string;
  pieces: PiecesRef;
}

const keepLast = 10;

/**
 * Each save appends one head event to `checkpoint-<name>`, the latest wins; stream metadata caps the
 * stream so old heads get scavenged. A state too large for one event first goes, one event per piece,
 * to `checkpoint-<name>-pieces-<slot>`, truncated to that save's pieces (docs/decisions/0041).
 */
export function createKurrentDbCheckpointStore(
  client: KurrentDBClient,
  readStream: (stream: string, options: ReadStreamOptions) => Promise<RecordedEvent[]>,
  /** The server's hosts, named in errors. */
  address?: string,
): CheckpointStore {
  return checkpointsInPieces(kurrentDbCheckpointRecords(client, readStream, address));
}

function kurrentDbCheckpointRecords(
  client: KurrentDBClient,
  readStream: (stream: string, options: ReadStreamOptions) => Promise<RecordedEvent[]>,
  address?: string,
): CheckpointRecords {
  const capped = new Set<string>();
  const headStream = (name: string) => `checkpoint-${name}`;
  const slotStream = (name: string, slot: 0 | 1) => `checkpoint-${name}-pieces-${slot}`;

  async function append(stream: string, type: string, data: unknown): Promise<bigint> {
    try {
      const result = await client.appendToStream(stream, toEventData({ id: randomUUID(), type, data, metadata: null }));
      return result.nextExpectedRevision;
    } catch (error) {
      throw toStagecraftError(error, stream, 'any', address);
    }
  }

  async function setMetadata(stream: string, metadata: Parameters<KurrentDBClient['setStreamMetadata']>[1]): Promise<void> {
    try {
      await client.setStreamMetadata(stream, metadata);
    } catch (error) {
      throw toStagecraftError(error, stream, 'any', address);
    }
  }

  return {
    async readHead(name) {
      const [latest] = await readStream(headStream(name), { direction: 'backwards', fromRevision: 'end', maxCount: 1 });
      if (!latest) return null;
      if (latest.type === 'CheckpointPiecesSaved') {
        const saved = latest.data as CheckpointPiecesSaved;
        return { position: BigInt(saved.position), pieces: saved.pieces };
      }
      const saved = latest.data as CheckpointSaved;
      return { position: BigInt(saved.position), state: saved.state };
    },
    async writeHead(name, head: CheckpointHead) {
      const stream = headStream(name);
      const position = head.position.toString();
      if ('pieces' in head)
        await append(stream, 'CheckpointPiecesSaved', { position, pieces: head.pieces } satisfies CheckpointPiecesSaved);
      else await append(stream, 'CheckpointSaved', { position, state: head.state } satisfies CheckpointSaved);
      if (!capped.has(stream)) {
        await setMetadata(stream, { maxCount: keepLast });
        capped.add(stream);
      }
    },
    async writePieces(name, slot, pieces) {
      const stream = slotStream(name, slot);
      // One append per piece: KurrentDB's limit is per append, and the pieces together are over it.
      let last = -1n;
      for (const text of pieces) last = await append(stream, 'CheckpointPiece', { text });
      const from = last - BigInt(pieces.length) + 1n;
      await setMetadata(stream, { truncateBefore: Number(from) });
      return from;
    },
    async readPieces(name, slot, from, count) {
      const events = await readStream(slotStream(name, slot), { direction: 'forwards', fromRevision: from, maxCount: count });
      return events.map((e) => (e.data as { text: string }).text);
    },
  };
}
