import type { DatabaseSync } from 'node:sqlite';

/*
 * `position` is the rowid: appends run in BEGIN IMMEDIATE transactions, one writer at a time,
 * so rowids grow in commit order and a reader never sees position n+1 without n.
 * Idempotency is checked per stream, (stream_id, id): a global index on random uuids
 * turns every batch into hundreds of scattered page writes once the log is large.
 */
const schema = `
CREATE TABLE IF NOT EXISTS events (
  position    INTEGER PRIMARY KEY,
  stream_id   TEXT    NOT NULL,
  revision    INTEGER NOT NULL,
  id          TEXT    NOT NULL,
  type        TEXT    NOT NULL,
  data        TEXT    NOT NULL,
  metadata    TEXT    NOT NULL,
  recorded_at TEXT    NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS events_stream_revision ON events (stream_id, revision);
CREATE UNIQUE INDEX IF NOT EXISTS events_stream_id ON events (stream_id, id);
CREATE TABLE IF NOT EXISTS checkpoints (
  name     TEXT    PRIMARY KEY,
  position INTEGER NOT NULL,
  state    TEXT    NOT NULL
);
CREATE TABLE IF NOT EXISTS checkpoint_pieces (
  name  TEXT    NOT NULL,
  piece INTEGER NOT NULL,
  bytes BLOB    NOT NULL,
  PRIMARY KEY (name, piece)
);
`;

export function openSchema(db: DatabaseSync, busyTimeoutMs: number): void {
  db.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = NORMAL');
  db.exec('BEGIN IMMEDIATE');
  try {
    db.exec(schema);
    db.exec('COMMIT');
  } catch (error) {
    db.exec('ROLLBACK');
    throw error;
  }
}
