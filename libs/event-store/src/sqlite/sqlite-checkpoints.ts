import type { Statements } from './statements';
import type { CheckpointStore, Position } from '../port';

/** One row per projection: position and state are written by one statement, so they never disagree. */
export function createSqliteCheckpointStore(sql: Statements): CheckpointStore {
  return {
    async load<S>(name: string) {
      const row = sql.loadCheckpoint.get(name) as { position: number; state: string } | undefined;
      return row ? { position: BigInt(row.position), state: JSON.parse(row.state) as S } : null;
    },
    async save<S>(name: string, position: Position, state: S) {
      sql.saveCheckpoint.run(name, Number(position), JSON.stringify(state));
    },
  };
}
