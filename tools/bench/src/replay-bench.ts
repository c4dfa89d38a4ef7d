import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { DatabaseSync } from 'node:sqlite';
import { activeRunsProjection } from '@stagecraft/conversation-service';
import { EventStore, Position, Projection, createSqliteEventStore, rebuildProjection } from '@stagecraft/event-store';
import { GeneratedLog, recordTemplate, writeReplayLog } from './replay-log';
import { percentile } from './stats';

export const replayBenchTarget = { eventsPerSecond: 200_000 } as const;
const REPEATS = 3;
const PAGE = 1_000;

/** The read models `stagecraft replay` rebuilds, in its order. */
function readModels(): Projection<unknown>[] {
  return [activeRunsProjection as Projection<unknown>];
}

export interface Timed {
  name: string;
  ms: number;
  eventsPerSecond: number;
}

/** One warm-up pass, then the median of `REPEATS` timed passes over a log of `events` events. */
async function timed(name: string, events: number, pass: () => Promise<unknown>): Promise<Timed> {
  await pass();
  const times: number[] = [];
  for (let r = 0; r < REPEATS; r += 1) {
    const started = performance.now();
    await pass();
    times.push(performance.now() - started);
  }
  const ms = percentile(times, 50);
  return { name, ms, eventsPerSecond: Math.round(events / (ms / 1000)) };
}

/** The baseline: every event of the log read through the port, page by page as a rebuild reads it, and folded into nothing. */
async function readAllPass(store: EventStore): Promise<number> {
  let read = 0;
  let after: Position | 'start' = 'start';
  for (;;) {
    const page = await store.readAll({ fromPosition: after, maxCount: PAGE });
    read += page.length;
    if (page.length > 0) after = page[page.length - 1].position;
    if (page.length < PAGE) return read;
  }
}

/** The same rows straight from SQLite, not parsed: what reading alone costs, before JSON.parse. */
function sqlRowsPass(db: DatabaseSync): number {
  const statement = db.prepare(
    'SELECT position, stream_id, revision, id, type, data, metadata, recorded_at FROM events WHERE position > ? ORDER BY position LIMIT ?',
  );
  statement.setReturnArrays(true);
  let read = 0;
  let after = 0;
  for (;;) {
    const rows = statement.all(after, PAGE) as unknown as [number][];
    read += rows.length;
    if (rows.length > 0) after = rows[rows.length - 1][0];
    if (rows.length < PAGE) return read;
  }
}

export interface ReplayBenchResult {
  log: GeneratedLog & { fileBytes: number };
  sqlRows: Timed;
  baseline: Timed;
  models: Timed[];
  all: Timed;
  missedTargets: string[];
}

const rate = (t: Timed) => `${t.eventsPerSecond.toLocaleString('en-US')} events/s`;

/**
 * A realistic log (copies of a real embedded workload, see `replay-log.ts`) in a temporary SQLite
 * file, then the rebuild rate of each read model and of all of them one after another, as
 * `stagecraft replay` runs them, against a bare read of the same log measured in the same run.
 */
export async function runReplayBench(print: (line: string) => void, target = 100_000): Promise<ReplayBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'stagecraft-replay-bench-'));
  const path = join(dir, 'events.db');
  try {
    let started = performance.now();
    const template = await recordTemplate();
    print(`template workload: ${template.length} events, recorded by the six services in ${(performance.now() - started).toFixed(0)} ms`);
    started = performance.now();
    const generated = await writeReplayLog(path, template, target);
    const log = { ...generated, fileBytes: statSync(path).size };
    print(
      `log: ${log.events.toLocaleString('en-US')} events (${log.copies} copies, ${log.runs.toLocaleString('en-US')} runs), ` +
        `${(log.bytes / 1e6).toFixed(1)} MB of event JSON (${Math.round(log.bytes / log.events)} bytes/event), ` +
        `file ${(log.fileBytes / 1e6).toFixed(1)} MB, written and schema-checked in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );

    const db = new DatabaseSync(path, { readOnly: true });
    const store = createSqliteEventStore({ path });
    try {
      const sqlRows = await timed('SQLite rows only (no JSON.parse)', log.events, async () => sqlRowsPass(db));
      const baseline = await timed('readAll, no fold (baseline)', log.events, () => readAllPass(store));
      const models: Timed[] = [];
      for (const model of readModels()) models.push(await timed(model.name, log.events, () => rebuildProjection(store, model)));
      const all = await timed('all read models', log.events, async () => {
        for (const model of readModels()) await rebuildProjection(store, model);
      });
      const missedTargets = [...models, all]
        .filter((t) => t.eventsPerSecond < replayBenchTarget.eventsPerSecond)
        .map((t) => `${t.name}: ${rate(t)}`);
      printResult(print, { sqlRows, baseline, models, all });
      print(
        missedTargets.length === 0
          ? `target ≥ ${replayBenchTarget.eventsPerSecond.toLocaleString('en-US')} events/s: met`
          : `MISSED target ≥ ${replayBenchTarget.eventsPerSecond.toLocaleString('en-US')} events/s: ${missedTargets.join('; ')}`,
      );
      return { log, sqlRows, baseline, models, all, missedTargets };
    } finally {
      db.close();
      await store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function printResult(print: (line: string) => void, r: Pick<ReplayBenchResult, 'sqlRows' | 'baseline' | 'models' | 'all'>): void {
  const row = (cells: string[]) => print(cells.map((c, i) => (i === 0 ? c.padEnd(36) : c.padStart(18))).join(' '));
  print('');
  row(['pass over the whole log', `ms (median of ${REPEATS})`, 'events/s', '× baseline time']);
  for (const t of [r.sqlRows, r.baseline, ...r.models, r.all])
    row([t.name, t.ms.toFixed(1), t.eventsPerSecond.toLocaleString('en-US'), (t.ms / r.baseline.ms).toFixed(2)]);
  print('');
  const parse = r.baseline.ms - r.sqlRows.ms;
  print(
    `where a rebuild's time goes: reading rows ${r.sqlRows.ms.toFixed(1)} ms, JSON.parse and event objects ${parse.toFixed(1)} ms, ` +
      `folding (all models) ${(r.all.ms - r.baseline.ms * r.models.length).toFixed(1)} ms beyond ${r.models.length} read(s) of the log`,
  );
}
