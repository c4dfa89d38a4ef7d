import type { CheckpointStore, Position } from '../port';
import { fitsWhole, joinPieces, piecesOf, type PiecesRef } from './pieces';

/** The latest save of a checkpoint: the state itself when it is small, else where its pieces are. */
export type CheckpointHead = { position: Position; state: unknown } | { position: Position; pieces: PiecesRef };

/**
 * What a store keeps a checkpoint in, shaped like KurrentDB streams: a head record (the latest wins)
 * and two slots of piece records, each record one append. The memory and KurrentDB adapters implement it.
 */
export interface CheckpointRecords {
  readHead(name: string): Promise<CheckpointHead | null>;
  writeHead(name: string, head: CheckpointHead): Promise<void>;
  /** Appends one record per piece (base64) to the slot, drops the slot's older records, and returns the first piece's place. */
  writePieces(name: string, slot: 0 | 1, pieces: readonly string[]): Promise<bigint>;
  /** Up to `count` pieces from place `from`: fewer when some were dropped. */
  readPieces(name: string, slot: 0 | 1, from: bigint, count: number): Promise<string[]>;
}

/**
 * A checkpoint store whose every record fits KurrentDB's append limit: a state whose JSON is over
 * `PIECE_BYTES` goes as pieces (base64 of its UTF-8), then a head naming them with their digest. A head
 * whose pieces do not add up (two savers raced, a slot was overwritten) loads as no checkpoint, so the
 * view is rebuilt from the log, never resumed from a wrong state. Heads written whole before pieces
 * existed load as they are.
 */
export function checkpointsInPieces(records: CheckpointRecords): CheckpointStore {
  return {
    async load<S>(name: string) {
      const head = await records.readHead(name);
      if (!head) return null;
      if (!('pieces' in head)) return { position: head.position, state: head.state as S };
      const { slot, from, count } = head.pieces;
      const pieces = await records.readPieces(name, slot, BigInt(from), count);
      const text = joinPieces(
        head.pieces,
        pieces.map((p) => Buffer.from(p, 'base64')),
      );
      return text === null ? null : { position: head.position, state: JSON.parse(text) as S };
    },
    async save<S>(name: string, position: Position, state: S) {
      const text = JSON.stringify(state);
      if (text === undefined || fitsWhole(text)) {
        await records.writeHead(name, { position, state });
        return;
      }
      const current = await records.readHead(name);
      const slot = current && 'pieces' in current && current.pieces.slot === 0 ? 1 : 0;
      const { pieces, sum } = piecesOf(text);
      const from = await records.writePieces(
        name,
        slot,
        pieces.map((p) => p.toString('base64')),
      );
      const ref: PiecesRef = { slot, from: from.toString(), ...sum };
      await records.writeHead(name, { position, pieces: ref });
    },
  };
}
