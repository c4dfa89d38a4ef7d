import type { DatabaseSync, StatementSync } from 'node:sqlite';

const columns = 'position, stream_id, revision, id, type, data, metadata, recorded_at';

/** Every statement the adapter runs, prepared once per connection. */
export function prepareStatements(db: DatabaseSync) {
  const statements = {
    begin: db.prepare('BEGIN IMMEDIATE'),
    // A read snapshot: a checkpoint's row and its pieces as one save left them.
    beginRead: db.prepare('BEGIN DEFERRED'),
    commit: db.prepare('COMMIT'),
    rollback: db.prepare('ROLLBACK'),
    logHead: db.prepare('SELECT MAX(position) AS head FROM events'),
    head: db.prepare('SELECT revision, position FROM events WHERE stream_id = ? ORDER BY revision DESC LIMIT 1'),
    // The chain hash an append links onto (absent in events written before streams were chained).
    chainHash: db.prepare("SELECT json_extract(metadata, '$.chain.hash') AS hash FROM events WHERE stream_id = ? AND revision = ?"),
    revisionOfId: db.prepare('SELECT revision FROM events WHERE stream_id = ? AND id = ?'),
    idsFrom: db.prepare('SELECT id, revision, position FROM events WHERE stream_id = ? AND revision >= ? ORDER BY revision LIMIT ?'),
    insert: db.prepare('INSERT INTO events (stream_id, revision, id, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)'),
    readForwards: db.prepare(`SELECT ${columns} FROM events WHERE stream_id = ? AND revision BETWEEN ? AND ? ORDER BY revision`),
    readBackwards: db.prepare(`SELECT ${columns} FROM events WHERE stream_id = ? AND revision BETWEEN ? AND ? ORDER BY revision DESC`),
    readAll: db.prepare(`SELECT ${columns} FROM events WHERE position > ? ORDER BY position LIMIT ?`),
    // The types come as one JSON array, so one statement serves every set of types; the set is built once per query.
    readAllOfTypes: db.prepare(
      `SELECT ${columns} FROM events WHERE position > ? AND type IN (SELECT value FROM json_each(?)) ORDER BY position LIMIT ?`,
    ),
    loadCheckpoint: db.prepare('SELECT position, state FROM checkpoints WHERE name = ?'),
    saveCheckpoint: db.prepare(
      'INSERT INTO checkpoints (name, position, state) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET position = excluded.position, state = excluded.state',
    ),
    loadPieces: db.prepare('SELECT bytes FROM checkpoint_pieces WHERE name = ? ORDER BY piece'),
    savePiece: db.prepare('INSERT INTO checkpoint_pieces (name, piece, bytes) VALUES (?, ?, ?)'),
    dropPieces: db.prepare('DELETE FROM checkpoint_pieces WHERE name = ?'),
  } satisfies Record<string, StatementSync>;
  // Rows as arrays: no per-row object with named keys on the hot read paths.
  for (const read of [statements.readForwards, statements.readBackwards, statements.readAll, statements.readAllOfTypes])
    read.setReturnArrays(true);
  return statements;
}

export type Statements = ReturnType<typeof prepareStatements>;

/** Column order of every read statement, see `columns`. */
export type EventRow = [number, string, number, string, string, string, string, string];
