import type { Statements } from './statements';
import type { CheckpointStore, Position } from '../port';
import { fitsWhole, joinPieces, piecesOf, type PiecesSum } from '../checkpoints/pieces';

/**
 * One row per projection, written with its pieces in one transaction, so position and state never
 * disagree. A state over `PIECE_BYTES` goes to `checkpoint_pieces` as pieces of its UTF-8, and
 * the row holds what they add up to; a smaller one stays in the row, as every checkpoint did before
 * pieces (docs/decisions/0041). A name with pieces is a pieced checkpoint: nothing else writes them.
 */
export function createSqliteCheckpointStore(sql: Statements): CheckpointStore {
  const inTransaction = <T>(begin: Statements['begin'], work: () => T): T => {
    begin.run();
    try {
      const result = work();
      sql.commit.run();
      return result;
    } catch (error) {
      try {
        sql.rollback.run();
      } catch {
        // Nothing left to undo.
      }
      throw error;
    }
  };
  return {
    async load<S>(name: string) {
      const { row, pieces } = inTransaction(sql.beginRead, () => ({
        row: sql.loadCheckpoint.get(name) as { position: number; state: string } | undefined,
        pieces: (sql.loadPieces.all(name) as { bytes: Uint8Array }[]).map((p) => p.bytes),
      }));
      if (!row) return null;
      const position = BigInt(row.position);
      if (pieces.length === 0) return { position, state: JSON.parse(row.state) as S };
      const text = joinPieces(JSON.parse(row.state) as PiecesSum, pieces);
      return text === null ? null : { position, state: JSON.parse(text) as S };
    },
    async save<S>(name: string, position: Position, state: S) {
      const text = JSON.stringify(state);
      const { pieces, sum } = fitsWhole(text) ? { pieces: [], sum: null } : piecesOf(text);
      const row = sum ? JSON.stringify(sum) : text;
      inTransaction(sql.begin, () => {
        sql.dropPieces.run(name);
        pieces.forEach((piece, i) => sql.savePiece.run(name, i, piece));
        sql.saveCheckpoint.run(name, Number(position), row);
      });
    },
  };
}
