import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createMemoryEventStore, createSqliteEventStore, type EventStore, type NewEvent, type Position } from '@stagecraft/event-store';
import { percentile } from './stats';

export type BenchedAdapter = 'memory' | 'sqlite';

export interface LatencyResult {
  samples: number;
  p50Ms: number;
  p99Ms: number;
}

export interface ReplayResult {
  events: number;
  via: 'readStream' | 'readAll';
  ms: number;
  eventsPerSecond: number;
}

export interface AdapterBenchResult {
  adapter: BenchedAdapter;
  /** Per event: one append of one event with the exact expected revision. */
  singleAppend: LatencyResult;
  /** Per event: one append of `batchSize` events, divided by `batchSize`. */
  batched: (LatencyResult & { batchSize: number })[];
  replay: ReplayResult[];
}

export interface StoreBenchResult {
  adapters: AdapterBenchResult[];
  /** The sqlite targets that were missed, empty when all are met. */
  missedTargets: string[];
}

export const storeBenchTargets = { batchedMsPerEvent: 0.01, singleAppendMs: 0.06, replay1000Ms: 5 } as const;

/** A StageEntered-sized event (~450 bytes of JSON) with full metadata. */
function benchEvent(runId: string, i: number): NewEvent {
  return {
    id: randomUUID(),
    type: 'StageEntered',
    data: {
      stage: 'act',
      iteration: i,
      contextId: `wf-${runId}/coder/${i}/1735689600000`,
      policy: {
        userMode: 'agent',
        reasoningEnabled: true,
        stage: 'act',
        tools: ['read_file', 'list_dir', 'search_code', 'write_file', 'apply_patch', 'run_command'],
        prompts: ['base/system', 'agent/mode_addition'],
        reasoning: { rule: 'micro', required: true },
      },
    },
    metadata: {
      runId,
      conversationId: `conv-${runId}`,
      causationId: randomUUID(),
      correlationId: runId,
      occurredAt: '2025-01-01T00:00:00.000Z',
    },
  };
}

const events = (runId: string, count: number, from = 0) => Array.from({ length: count }, (_, i) => benchEvent(runId, from + i));

function latency(samples: number[]): LatencyResult {
  return { samples: samples.length, p50Ms: percentile(samples, 50), p99Ms: percentile(samples, 99) };
}

async function singleAppends(store: EventStore, count: number): Promise<LatencyResult> {
  const stream = `run-single-${randomUUID()}`;
  const prepared = events(stream, count + 200);
  let expectedRevision: bigint | 'no_stream' = 'no_stream';
  const samples: number[] = [];
  for (const [i, event] of prepared.entries()) {
    const started = performance.now();
    expectedRevision = (await store.appendToStream(stream, [event], { expectedRevision })).nextExpectedRevision;
    // The first 200 warm the statement caches and the JIT.
    if (i >= 200) samples.push(performance.now() - started);
  }
  return latency(samples);
}

async function batchedAppends(store: EventStore, batchSize: number, batches: number): Promise<LatencyResult & { batchSize: number }> {
  const samples: number[] = [];
  for (let b = 0; b < batches + 5; b += 1) {
    const stream = `run-batch-${randomUUID()}`;
    const batch = events(stream, batchSize);
    const started = performance.now();
    await store.appendToStream(stream, batch, { expectedRevision: 'no_stream' });
    if (b >= 5) samples.push((performance.now() - started) / batchSize);
  }
  return { batchSize, ...latency(samples) };
}

/** Appends `count` events to one stream, returning the stream and the position just before its first event. */
async function seed(store: EventStore, count: number): Promise<{ stream: string; before: Position }> {
  const stream = `run-replay-${randomUUID()}`;
  const marker = `bench-marker-${randomUUID()}`;
  const before = (await store.appendToStream(marker, events(marker, 1))).position;
  let expectedRevision: bigint | 'no_stream' = 'no_stream';
  for (let from = 0; from < count; from += 1_000) {
    expectedRevision = (await store.appendToStream(stream, events(stream, Math.min(1_000, count - from), from), { expectedRevision }))
      .nextExpectedRevision;
  }
  return { stream, before };
}

async function timeReplay(count: number, via: ReplayResult['via'], repeats: number, replay: () => Promise<number>): Promise<ReplayResult> {
  const times: number[] = [];
  for (let r = 0; r < repeats + 1; r += 1) {
    const started = performance.now();
    const read = await replay();
    const elapsed = performance.now() - started;
    if (read !== count) throw new Error(`replay via ${via} read ${read} of ${count} events`);
    if (r > 0) times.push(elapsed);
  }
  const ms = percentile(times, 50);
  return { events: count, via, ms, eventsPerSecond: Math.round(count / (ms / 1000)) };
}

async function readAllPaged(store: EventStore, after: Position, count: number): Promise<number> {
  let read = 0;
  let from = after;
  while (read < count) {
    const page = await store.readAll({ fromPosition: from, maxCount: Math.min(1_000, count - read) });
    if (page.length === 0) break;
    read += page.length;
    from = page[page.length - 1].position;
  }
  return read;
}

async function replays(store: EventStore): Promise<ReplayResult[]> {
  const results: ReplayResult[] = [];
  for (const [count, repeats] of [
    [1_000, 20],
    [100_000, 3],
  ] as const) {
    // Seeded into an otherwise idle log, so readAll from `before` reads exactly this stream.
    const { stream, before } = await seed(store, count);
    results.push(await timeReplay(count, 'readStream', repeats, async () => (await store.readStream(stream)).length));
    results.push(await timeReplay(count, 'readAll', repeats, () => readAllPaged(store, before, count)));
  }
  return results;
}

async function benchAdapter(adapter: BenchedAdapter, store: EventStore): Promise<AdapterBenchResult> {
  return {
    adapter,
    singleAppend: await singleAppends(store, 2_000),
    batched: [await batchedAppends(store, 100, 300), await batchedAppends(store, 1_000, 60)],
    replay: await replays(store),
  };
}

function missedTargets(sqlite: AdapterBenchResult): string[] {
  const missed: string[] = [];
  for (const b of sqlite.batched) {
    if (b.p50Ms > storeBenchTargets.batchedMsPerEvent)
      missed.push(`sqlite batched x${b.batchSize}: p50 ${b.p50Ms.toFixed(4)} ms/event > ${storeBenchTargets.batchedMsPerEvent}`);
  }
  if (sqlite.singleAppend.p50Ms > storeBenchTargets.singleAppendMs)
    missed.push(`sqlite single append: p50 ${sqlite.singleAppend.p50Ms.toFixed(4)} ms > ${storeBenchTargets.singleAppendMs}`);
  for (const r of sqlite.replay.filter((x) => x.events === 1_000)) {
    if (r.ms > storeBenchTargets.replay1000Ms)
      missed.push(`sqlite replay 1,000 via ${r.via}: ${r.ms.toFixed(2)} ms > ${storeBenchTargets.replay1000Ms}`);
  }
  return missed;
}

function printTable(print: (line: string) => void, results: AdapterBenchResult[]): void {
  const row = (cells: string[]) => print(cells.map((c, i) => (i < 2 ? c.padEnd(i === 0 ? 8 : 34) : c.padStart(16))).join(' '));
  row(['store', 'measure', 'p50', 'p99']);
  for (const r of results) {
    row([
      r.adapter,
      `single append (${r.singleAppend.samples} × 1 event)`,
      `${r.singleAppend.p50Ms.toFixed(4)} ms`,
      `${r.singleAppend.p99Ms.toFixed(4)} ms`,
    ]);
    for (const b of r.batched)
      row([r.adapter, `batched append (${b.samples} × ${b.batchSize})`, `${b.p50Ms.toFixed(4)} ms/ev`, `${b.p99Ms.toFixed(4)} ms/ev`]);
  }
  print('');
  row(['store', 'replay', 'ms (median)', 'events/s']);
  for (const r of results) {
    for (const x of r.replay)
      row([
        r.adapter,
        `${x.events.toLocaleString('en-US')} events via ${x.via}`,
        `${x.ms.toFixed(2)} ms`,
        x.eventsPerSecond.toLocaleString('en-US'),
      ]);
  }
}

/**
 * Append latency and replay throughput for the embedded adapters. sqlite runs on a temporary file
 * with the adapter's production settings (WAL, synchronous=NORMAL).
 */
export async function runStoreBench(print: (line: string) => void): Promise<StoreBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'stagecraft-store-bench-'));
  const results: AdapterBenchResult[] = [];
  try {
    for (const adapter of ['sqlite', 'memory'] as const) {
      const store = adapter === 'sqlite' ? createSqliteEventStore({ path: join(dir, 'events.db') }) : createMemoryEventStore();
      try {
        results.push(await benchAdapter(adapter, store));
      } finally {
        await store.close();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  print('event store');
  printTable(print, results);
  const sqlite = results.find((r) => r.adapter === 'sqlite');
  const missed = sqlite ? missedTargets(sqlite) : [];
  const t = storeBenchTargets;
  print(
    `targets (sqlite, p50): batched ≤ ${t.batchedMsPerEvent} ms/event, single append ≤ ${t.singleAppendMs} ms, replay 1,000 ≤ ${t.replay1000Ms} ms`,
  );
  print(missed.length === 0 ? 'all targets met' : `MISSED: ${missed.join('; ')}`);
  return { adapters: results, missedTargets: missed };
}
