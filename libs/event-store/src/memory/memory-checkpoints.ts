import type { CheckpointStore } from '../port';
import { assertAppendFits } from '../shared/append-limit';
import { checkpointsInPieces, type CheckpointHead, type CheckpointRecords } from '../checkpoints/checkpoints-in-pieces';

/** A slot's records as a KurrentDB stream keeps them: places count on from the first ever written. */
interface Slot {
  first: number;
  texts: string[];
}

/**
 * Records kept as JSON text, each refused over KurrentDB's append limit as KurrentDB would refuse it,
 * in the streams the KurrentDB adapter writes: the same save and load run here as there.
 */
export function memoryCheckpointRecords(): CheckpointRecords {
  const heads = new Map<string, string>();
  const slots = new Map<string, Slot>();
  const slotKey = (name: string, slot: 0 | 1) => `checkpoint-${name}-pieces-${slot}`;
  const record = (stream: string, data: unknown): string => {
    const text = JSON.stringify(data);
    assertAppendFits(stream, Buffer.byteLength(text));
    return text;
  };
  return {
    async readHead(name) {
      const text = heads.get(name);
      if (text === undefined) return null;
      const { position, ...rest } = JSON.parse(text) as { position: string };
      return { ...rest, position: BigInt(position) } as CheckpointHead;
    },
    async writeHead(name, head) {
      heads.set(name, record(`checkpoint-${name}`, { ...head, position: head.position.toString() }));
    },
    async writePieces(name, slot, pieces) {
      const key = slotKey(name, slot);
      const texts = pieces.map((text) => record(key, { text }));
      const before = slots.get(key);
      const first = before ? before.first + before.texts.length : 0;
      slots.set(key, { first, texts });
      return BigInt(first);
    },
    async readPieces(name, slot, from, count) {
      const kept = slots.get(slotKey(name, slot));
      if (!kept) return [];
      // From a dropped place on, as KurrentDB reads a truncated stream: what is still there.
      const start = Math.max(0, Number(from) - kept.first);
      return kept.texts.slice(start, start + count).map((text) => (JSON.parse(text) as { text: string }).text);
    },
  };
}

export function createMemoryCheckpointStore(records: CheckpointRecords = memoryCheckpointRecords()): CheckpointStore {
  return checkpointsInPieces(records);
}
