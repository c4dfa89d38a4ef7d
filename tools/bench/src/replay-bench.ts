import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { DatabaseSync } from 'node:sqlite';
import { canonicalJson, streams } from '@stagecraft/contracts';
import { activeRunsProjection } from '@stagecraft/conversation-service';
import {
  EventStore,
  Position,
  Projection,
  RecordedEvent,
  createSqliteEventStore,
  rebuildProjection,
  rebuildProjections,
} from '@stagecraft/event-store';
import { HistoryView, READ_MODELS, historyModel } from '@stagecraft/read-models';
import { GeneratedLog, recordConversation } from './replay-log';
import { percentile } from './stats';

export const replayBenchTarget = { eventsPerSecond: 200_000 } as const;
const REPEATS = 3;
const PAGE = 1_000;
const HISTORY_TURNS = 200;

/** The read models `stagecraft replay` rebuilds, in its order. */
function readModels(): Projection<unknown>[] {
  return [activeRunsProjection as Projection<unknown>, ...READ_MODELS];
}

/** One warm-up pass, then the median of `REPEATS` timed passes. */
async function medianMs(pass: () => unknown): Promise<number> {
  await pass();
  const times: number[] = [];
  for (let r = 0; r < REPEATS; r += 1) {
    const started = performance.now();
    await pass();
    times.push(performance.now() - started);
  }
  return percentile(times, 50);
}

/** Every event of the log (or of `types`) read through the port, page by page as a rebuild reads it, and folded into nothing. */
async function readAllPass(store: EventStore, types?: readonly string[]): Promise<number> {
  let read = 0;
  let after: Position | 'start' = 'start';
  for (;;) {
    const page = await store.readAll({ fromPosition: after, maxCount: PAGE, types });
    read += page.length;
    if (page.length > 0) after = page[page.length - 1].position;
    if (page.length < PAGE) return read;
  }
}

/** The same rows straight from SQLite, not parsed: what reading alone costs, before JSON.parse. */
function sqlRowsPass(db: DatabaseSync, types?: readonly string[]): number {
  const filter = types ? 'AND type IN (SELECT value FROM json_each(?))' : '';
  const statement = db.prepare(
    `SELECT position, stream_id, revision, id, type, data, metadata, recorded_at FROM events WHERE position > ? ${filter} ORDER BY position LIMIT ?`,
  );
  statement.setReturnArrays(true);
  let read = 0;
  let after = 0;
  for (;;) {
    const rows = (types ? statement.all(after, JSON.stringify(types), PAGE) : statement.all(after, PAGE)) as unknown as [number][];
    read += rows.length;
    if (rows.length > 0) after = rows[rows.length - 1][0];
    if (rows.length < PAGE) return read;
  }
}

export interface Rebuild {
  name: string;
  /** Events of the model's types in the log. */
  folded: number;
  /** Reading its rows, JSON.parse and event objects, evolve: each a median, ms. */
  rowsMs: number;
  parseMs: number;
  evolveMs: number;
  ms: number;
}

async function measureModel(store: EventStore, db: DatabaseSync, model: Projection<unknown>): Promise<Rebuild> {
  const folded = sqlRowsPass(db, model.handles);
  const rowsMs = await medianMs(() => sqlRowsPass(db, model.handles));
  const readMs = await medianMs(() => readAllPass(store, model.handles));
  const ms = await medianMs(() => rebuildProjection(store, model));
  return { name: model.name, folded, rowsMs, parseMs: readMs - rowsMs, evolveMs: ms - readMs, ms };
}

export interface HistorySize {
  turns: number;
  rawBytes: number;
  viewBytes: number;
  compactions: number;
}

/** A real conversation of `HISTORY_TURNS` chat turns: its stream's bytes against its compressed history's. */
async function measureHistory(): Promise<HistorySize> {
  return recordConversation(HISTORY_TURNS, async (store, conversationId) => {
    const stream = await store.readStream(streams.conversation(conversationId));
    const rawBytes = stream.reduce(
      (n, e) => n + Buffer.byteLength(JSON.stringify({ type: e.type, data: e.data, metadata: e.metadata })),
      0,
    );
    const view = (await rebuildProjection(store, historyModel)) as HistoryView;
    const history = view.conversations[conversationId];
    return { turns: HISTORY_TURNS, rawBytes, viewBytes: Buffer.byteLength(canonicalJson(history)), compactions: history.compactions };
  });
}

type WrittenLog = GeneratedLog & { fileBytes: number; recordedMs: number; writtenMs: number };

/** The log written by a child process (`replay-log-process.ts`), so that this one measures with a clean heap. */
async function writeLogElsewhere(path: string, target: number): Promise<WrittenLog> {
  const child = spawn(process.execPath, [join(__dirname, 'replay-log-process.js'), path, String(target)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`writing the log failed (exit ${code})`);
  return { ...(JSON.parse(out) as Omit<WrittenLog, 'fileBytes'>), fileBytes: statSync(path).size };
}

export interface ReplayBenchResult {
  log: WrittenLog;
  rowsMs: number;
  baselineMs: number;
  models: Rebuild[];
  /** Every model in one read of the log, as `stagecraft replay` rebuilds them. */
  allMs: number;
  /** One after another, a read of the log each (what the command did before; for comparison). */
  sequentialMs: number;
  history: HistorySize | null;
  missedTargets: string[];
}

/**
 * A realistic log (copies of a real embedded workload, see `replay-log.ts`) in a temporary SQLite
 * file, then the rebuild rate of each read model and of all of them one after another, as
 * `stagecraft replay` runs them, against a bare read of the same log measured in the same run.
 */
export async function runReplayBench(print: (line: string) => void, target = 100_000): Promise<ReplayBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'stagecraft-replay-bench-'));
  const path = join(dir, 'events.db');
  try {
    const log = await writeLogElsewhere(path, target);
    print(`template workload: ${log.templateEvents} events, written by the six services in ${log.recordedMs.toFixed(0)} ms`);
    print(
      `log: ${log.events.toLocaleString('en-US')} events (${log.copies} copies, ${log.runs.toLocaleString('en-US')} runs), ` +
        `${(log.bytes / 1e6).toFixed(1)} MB of event JSON (${Math.round(log.bytes / log.events)} bytes/event), ` +
        `file ${(log.fileBytes / 1e6).toFixed(1)} MB, written and schema-checked in ${(log.writtenMs / 1000).toFixed(1)} s`,
    );

    const db = new DatabaseSync(path, { readOnly: true });
    const store = createSqliteEventStore({ path });
    let result: Omit<ReplayBenchResult, 'history'>;
    try {
      const models = readModels();
      const rowsMs = await medianMs(() => sqlRowsPass(db));
      const baselineMs = await medianMs(() => readAllPass(store));
      const rebuilds: Rebuild[] = [];
      for (const model of models) rebuilds.push(await measureModel(store, db, model));
      const allMs = await medianMs(() => rebuildProjections(store, models));
      const sequentialMs = await medianMs(async () => {
        for (const model of models) await rebuildProjection(store, model);
      });
      const rate = (ms: number) => Math.round(log.events / (ms / 1000));
      const missedTargets = [...rebuilds.map((r) => [r.name, r.ms] as const), ['all read models', allMs] as const]
        .filter(([, ms]) => rate(ms) < replayBenchTarget.eventsPerSecond)
        .map(([name, ms]) => `${name}: ${rate(ms).toLocaleString('en-US')} events/s`);
      result = { log, rowsMs, baselineMs, models: rebuilds, allMs, sequentialMs, missedTargets };
      printRates(print, result);
    } finally {
      db.close();
      await store.close();
    }

    let history: HistorySize | null = null;
    if (READ_MODELS.includes(historyModel as (typeof READ_MODELS)[number])) {
      const started = performance.now();
      history = await measureHistory();
      const share = ((100 * history.viewBytes) / history.rawBytes).toFixed(1);
      print(
        `compressed history of one ${history.turns}-turn conversation: ${history.viewBytes.toLocaleString('en-US')} bytes against ` +
          `${history.rawBytes.toLocaleString('en-US')} bytes on its conversation stream (${share}%), after ${history.compactions} compaction(s); ` +
          `the conversation ran in ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );
    } else print('compressed history: not measured: no history view');
    return { ...result, history };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function printRates(print: (line: string) => void, r: Omit<ReplayBenchResult, 'history'>): void {
  const events = r.log.events;
  const rate = (ms: number) => Math.round(events / (ms / 1000));
  const cell = (ms: number) => ms.toFixed(1);
  const row = (cells: string[]) => print(cells.map((c, i) => (i === 0 ? c.padEnd(40) : c.padStart(12))).join(' '));
  print('');
  print(
    `rates are events of the whole log (${events.toLocaleString('en-US')}) per second of the pass; median of ${REPEATS} after a warm-up`,
  );
  row(['pass', 'ms', 'events/s', '× baseline', 'rows ms', 'parse ms', 'evolve ms', 'folded']);
  row(['SQLite rows only, every type', cell(r.rowsMs), rate(r.rowsMs).toLocaleString('en-US'), '', '', '', '', '']);
  row([
    'readAll, no fold (baseline)',
    cell(r.baselineMs),
    rate(r.baselineMs).toLocaleString('en-US'),
    '1.00',
    cell(r.rowsMs),
    cell(r.baselineMs - r.rowsMs),
    '',
    '',
  ]);
  for (const m of r.models)
    row([
      m.name,
      cell(m.ms),
      rate(m.ms).toLocaleString('en-US'),
      (r.baselineMs / m.ms).toFixed(2),
      cell(m.rowsMs),
      cell(m.parseMs),
      cell(m.evolveMs),
      m.folded.toLocaleString('en-US'),
    ]);
  row([
    'all read models in one read (replay)',
    cell(r.allMs),
    rate(r.allMs).toLocaleString('en-US'),
    (r.baselineMs / r.allMs).toFixed(2),
    '',
    '',
    '',
    '',
  ]);
  row([
    'one after another (comparison)',
    cell(r.sequentialMs),
    rate(r.sequentialMs).toLocaleString('en-US'),
    (r.baselineMs / r.sequentialMs).toFixed(2),
    '',
    '',
    '',
    '',
  ]);
  const target = replayBenchTarget.eventsPerSecond.toLocaleString('en-US');
  print(
    r.missedTargets.length === 0 ? `target ≥ ${target} events/s: met` : `MISSED target ≥ ${target} events/s: ${r.missedTargets.join('; ')}`,
  );
}
