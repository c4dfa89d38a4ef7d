import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { ChangeSignal } from '../shared/change-signal';
import { RecentAppends } from '../shared/recent-appends';
import { assertExpectedRevision, validateAppend } from '../shared/expected-revision';
import { createPollingSubscription } from '../shared/polling-subscription';
import { streamWindow } from '../shared/read-window';
import { StagecraftError } from '@stagecraft/contracts';
import { ConcurrencyError } from '../errors';
import { chainBatch, chainContent, chainedEvents, type ChainContent, type ChainLink } from '../chain/chain';
import { openSchema } from './schema';
import { startWalCheckpointer } from './wal-checkpointer';
import { prepareStatements, type EventRow, type Statements } from './statements';
import { createSqliteCheckpointStore } from './sqlite-checkpoints';
import { SQLITE_CONSTRAINT_UNIQUE, corruptStore, isCorruption, sqliteErrorCode, toAppendError } from './sqlite-errors';
import { checkIntegrity } from './integrity';
import { keepReserve, releaseReserve } from './reserve';
import type { AppendResult, EventStore, EventSubscription, ExpectedRevision, NewEvent, Position, RecordedEvent } from '../port';

export interface SqliteEventStoreOptions {
  /** A file path, or `:memory:` for a private database (live subscriptions then see only this connection). */
  path: string;
  /** How often live subscriptions look for appends made by other processes. */
  pollIntervalMs?: number;
  busyTimeoutMs?: number;
  /**
   * `background` (default for a file): a worker thread checkpoints the write-ahead log, so no append
   * pays for copying pages into the database file; `inline`: SQLite's own, in whichever append crosses the threshold.
   */
  checkpoints?: 'background' | 'inline';
  /**
   * Make the file's directory when it is missing. Off by default: a mistyped path should fail, not
   * start an empty log somewhere unexpected; callers turn it on for a default location of their own.
   */
  createDirectory?: boolean;
}

/** Checkpoint interval of the background thread, and the log size (in pages) at which a writer checkpoints anyway. */
const BACKGROUND_CHECKPOINT_MS = 100;
const BACKSTOP_WAL_PAGES = 16_384;

const toRecorded = (row: EventRow): RecordedEvent => ({
  position: BigInt(row[0]),
  streamId: row[1],
  revision: BigInt(row[2]),
  id: row[3],
  type: row[4],
  data: JSON.parse(row[5]),
  metadata: JSON.parse(row[6]),
  recordedAt: row[7],
});

function ensureDirectory(dir: string, create: boolean): void {
  if (create) mkdirSync(dir, { recursive: true });
  else if (!existsSync(dir))
    throw new StagecraftError('CONFIGURATION', `event store directory ${dir} does not exist`, [
      { path: ['store'], message: `create ${dir} first, or name a file in an existing directory` },
    ]);
}

/** The database, its schema in place and (for a file) its pages checked: a damaged file is refused as `CORRUPT`. */
function openChecked(path: string, busyTimeoutMs: number): DatabaseSync {
  let db: DatabaseSync | undefined;
  try {
    db = new DatabaseSync(path);
    openSchema(db, busyTimeoutMs);
    if (path !== ':memory:') checkIntegrity(db, path);
    return db;
  } catch (error) {
    if (db?.isOpen) db.close();
    throw isCorruption(error) ? corruptStore(error, `at ${path}: restore it from a backup`) : error;
  }
}

export function createSqliteEventStore(options: SqliteEventStoreOptions): EventStore {
  if (options.path !== ':memory:') ensureDirectory(dirname(options.path), options.createDirectory ?? false);
  const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
  const db = openChecked(options.path, busyTimeoutMs);
  const background = options.path !== ':memory:' && (options.checkpoints ?? 'background') === 'background';
  if (background) db.exec(`PRAGMA wal_autocheckpoint = ${BACKSTOP_WAL_PAGES}`);
  const checkpointer = background ? startWalCheckpointer(options.path, { intervalMs: BACKGROUND_CHECKPOINT_MS, busyTimeoutMs }) : undefined;
  const sql = prepareStatements(db);
  const changes = new ChangeSignal();
  const subscriptions = new Set<EventSubscription>();
  const pollMs = options.pollIntervalMs ?? 25;
  const recent = new RecentAppends();
  const heads = new HeadHashes();
  const file = options.path === ':memory:' ? null : options.path;
  if (file) keepReserve(file);

  const store: EventStore = {
    kind: 'sqlite',
    checkpoints: createSqliteCheckpointStore(sql),

    async appendToStream(stream, events, appendOptions) {
      const expected = appendOptions?.expectedRevision ?? 'any';
      validateAppend(stream, events, expected);
      // Serialise before taking the write lock: a bad payload fails without holding anyone up.
      const rows = events.map(chainContent);
      let result: ReturnType<typeof appendLocked>;
      try {
        sql.begin.run();
      } catch (error) {
        throw toAppendError(error, stream);
      }
      try {
        result = appendLocked(sql, heads, stream, events, rows, expected);
        sql.commit.run();
      } catch (error) {
        rollback(sql);
        throw toAppendError(error, stream);
      }
      const { nextExpectedRevision, position, recordedAt, links } = result;
      if (recordedAt && links) {
        heads.remember(stream, nextExpectedRevision, links[links.length - 1].hash);
        const last = BigInt(events.length) - 1n;
        recent.add(stream, chainedEvents(events, links), { position: position - last, revision: nextExpectedRevision - last, recordedAt });
      }
      if (events.length > 0) changes.notify();
      return { nextExpectedRevision, position };
    },

    async readStream(stream, readOptions) {
      const head = sql.head.get(stream) as { revision: number } | undefined;
      const window = streamWindow(readOptions, head ? BigInt(head.revision) : -1n);
      if (!window) return [];
      const statement = window.backwards ? sql.readBackwards : sql.readForwards;
      return (statement.all(stream, Number(window.from), Number(window.to)) as unknown as EventRow[]).map(toRecorded);
    },

    async readAll(readOptions) {
      const from = readOptions?.fromPosition === undefined || readOptions.fromPosition === 'start' ? 0 : Number(readOptions.fromPosition);
      const limit = readOptions?.maxCount ?? -1;
      const types = readOptions?.types;
      const rows = (types
        ? sql.readAllOfTypes.all(from, JSON.stringify(types), limit)
        : sql.readAll.all(from, limit)) as unknown as EventRow[];
      return rows.map(toRecorded);
    },

    async headPosition() {
      const { head } = sql.logHead.get() as { head: number | null };
      return BigInt(head ?? 0);
    },

    subscribeToAll(subscribeOptions) {
      const subscription = createPollingSubscription(
        { readAll: store.readAll, changes, pollMs, recent: (from, maxCount) => recent.after(from, maxCount) },
        subscribeOptions,
        () => subscriptions.delete(subscription),
      );
      subscriptions.add(subscription);
      return subscription;
    },

    releaseReserve: () => (file ? releaseReserve(file) : false),

    async close() {
      await Promise.all([...subscriptions].map((s) => s.close()));
      await checkpointer?.stop();
      if (db.isOpen) db.close();
    },
  };
  return store;
}

/**
 * The chain hash of each stream's last event as this connection appended it, so an append links on
 * without reading the head row (the head query reads only the index). Keyed by revision: a stream
 * another process appended to since has a head this does not know, and is read.
 */
class HeadHashes {
  private readonly byStream = new Map<string, { revision: bigint; hash: string }>();

  remember(stream: string, revision: bigint, hash: string): void {
    if (this.byStream.size >= 10_000) this.byStream.clear();
    this.byStream.set(stream, { revision, hash });
  }

  at(stream: string, revision: bigint): string | undefined {
    const known = this.byStream.get(stream);
    return known?.revision === revision ? known.hash : undefined;
  }
}

/** The head's chain hash: remembered, or read; `null` for a head written before streams were chained. */
function headHash(sql: Statements, heads: HeadHashes, stream: string, revision: number): string | null {
  const known = heads.at(stream, BigInt(revision));
  if (known) return known;
  const hash = (sql.chainHash.get(stream, revision) as { hash: unknown } | undefined)?.hash;
  return typeof hash === 'string' ? hash : null;
}

/**
 * After some errors (a full disk among them) SQLite has already rolled the transaction back, and a
 * second rollback fails with "no transaction is active": that must not replace the error that matters.
 */
function rollback(sql: Statements): void {
  try {
    sql.rollback.run();
  } catch {
    // Nothing left to undo.
  }
}

/**
 * `recordedAt` and `links` are set when this call stored the batch (not for a retry that returns the
 * original result). The batch is chained here, under the write lock, onto the head it is appended to.
 */
function appendLocked(
  sql: Statements,
  heads: HeadHashes,
  stream: string,
  events: NewEvent[],
  rows: readonly ChainContent[],
  expected: ExpectedRevision,
): AppendResult & { recordedAt?: string; links?: ChainLink[] } {
  const head = sql.head.get(stream) as { revision: number; position: number } | undefined;
  const current = head ? BigInt(head.revision) : -1n;
  if (events.length > 0) {
    const original = retried(sql, stream, events, expected, current);
    if (original) return original;
  }
  assertExpectedRevision(stream, expected, current);
  if (events.length === 0) return { nextExpectedRevision: current, position: head ? BigInt(head.position) : 0n };
  const chained = chainBatch(stream, head ? headHash(sql, heads, stream, head.revision) : null, rows);
  const recordedAt = new Date().toISOString();
  let revision = head ? head.revision : -1;
  let position = 0;
  try {
    rows.forEach(({ id, type, data }, i) => {
      revision += 1;
      position = Number(sql.insert.run(stream, revision, id, type, data, chained.metadata[i], recordedAt).lastInsertRowid);
    });
  } catch (error) {
    // Under the write lock only (stream_id, id) can collide: a batch that repeats earlier events out of place.
    if (sqliteErrorCode(error) !== SQLITE_CONSTRAINT_UNIQUE) throw error;
    throw new ConcurrencyError(stream, expected, current < 0n ? 'no_stream' : current, {
      cause: error,
      reason: 'an event id of this batch is already in the stream',
    });
  }
  return { nextExpectedRevision: BigInt(revision), position: BigInt(position), recordedAt, links: chained.links };
}

/** A batch whose first id is already in the stream is a retry: same ids in the same order return the original result. */
function retried(sql: Statements, stream: string, events: NewEvent[], expected: ExpectedRevision, current: bigint): AppendResult | null {
  const first = sql.revisionOfId.get(stream, events[0].id) as { revision: number } | undefined;
  if (!first) return null;
  const recorded = sql.idsFrom.all(stream, first.revision, events.length) as { id: string; revision: number; position: number }[];
  if (recorded.length !== events.length || recorded.some((r, i) => r.id !== events[i].id)) {
    throw new ConcurrencyError(stream, expected, current, {
      reason: `event ${events[0].id} is already in the stream, but the retried batch differs`,
    });
  }
  const last = recorded[recorded.length - 1];
  return { nextExpectedRevision: BigInt(last.revision), position: BigInt(last.position) };
}
