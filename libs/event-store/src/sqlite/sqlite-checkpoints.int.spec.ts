import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { PIECE_BYTES } from '../checkpoints/pieces';
import { createSqliteEventStore } from './sqlite-event-store';

const dir = mkdtempSync(join(tmpdir(), 'stagecraft-sqlite-checkpoints-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const nextFile = () => join(dir, `checkpoints-${(files += 1)}.db`);

const large = (tag: string) => ({ tag, rows: Array.from({ length: 30_000 }, (_, i) => `${tag} "row" ${i} é✓`.padEnd(70, '-')) });

function query<T>(path: string, sql: string, ...params: (string | number | Uint8Array)[]): T[] {
  const db = new DatabaseSync(path);
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

describe('sqlite checkpoints', () => {
  it('load a checkpoint a store without pieces wrote as one row, then keep a large state in bounded pieces of the same file', async () => {
    const path = nextFile();
    await createSqliteEventStore({ path }).close();
    // The file as the build before pieces left it: no pieces table, the state in its row.
    query(path, 'DROP TABLE checkpoint_pieces');
    query(path, 'INSERT INTO checkpoints (name, position, state) VALUES (?, ?, ?)', 'view', 41, JSON.stringify({ old: true }));

    const store = createSqliteEventStore({ path });
    try {
      expect(await store.checkpoints.load('view')).toEqual({ position: 41n, state: { old: true } });
      await store.checkpoints.save('view', 42n, large('a'));
      expect(await store.checkpoints.load('view')).toEqual({ position: 42n, state: large('a') });
      const pieces = query<{ size: number }>(path, 'SELECT length(bytes) AS size FROM checkpoint_pieces WHERE name = ?', 'view');
      expect(pieces.length).toBeGreaterThan(2);
      expect(Math.max(...pieces.map((p) => p.size))).toBeLessThanOrEqual(PIECE_BYTES);

      await store.checkpoints.save('view', 43n, { small: true });
      expect(await store.checkpoints.load('view')).toEqual({ position: 43n, state: { small: true } });
      expect(query(path, 'SELECT piece FROM checkpoint_pieces')).toEqual([]);
      expect(query(path, 'SELECT state FROM checkpoints WHERE name = ?', 'view')).toEqual([{ state: '{"small":true}' }]);
    } finally {
      await store.close();
    }
  });

  it('load pieces that no longer add up to what the row says as no checkpoint, never as another state', async () => {
    const path = nextFile();
    const store = createSqliteEventStore({ path });
    try {
      await store.checkpoints.save('view', 7n, large('a'));
      const [first] = query<{ bytes: Uint8Array }>(path, 'SELECT bytes FROM checkpoint_pieces WHERE name = ? AND piece = 0', 'view');
      await store.checkpoints.save('view', 8n, large('b'));
      // The first piece of the older save back in place of the newer one's.
      query(path, 'UPDATE checkpoint_pieces SET bytes = ? WHERE name = ? AND piece = 0', first.bytes, 'view');
      expect(await store.checkpoints.load('view')).toBeNull();
      query(path, 'DELETE FROM checkpoint_pieces WHERE name = ? AND piece = 1', 'view');
      expect(await store.checkpoints.load('view')).toBeNull();
      await store.checkpoints.save('view', 9n, large('c'));
      expect(await store.checkpoints.load('view')).toEqual({ position: 9n, state: large('c') });
    } finally {
      await store.close();
    }
  });
});
