import { DatabaseSync } from 'node:sqlite';
import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import {
  EventStore,
  NewEvent,
  RecordedEvent,
  chainBatch,
  chainContent,
  createSqliteEventStore,
  verifyStoreChain,
} from '@stagecraft/event-store';
import { percentile } from './stats';

/** What the hash chain costs per event, measured on the events of real runs (docs/decisions/0037). */
export interface ChainCost {
  events: number;
  /** CPU per event: serialising data and metadata as the stores did before chaining, and serialising plus chaining now. */
  serializeUs: number;
  serializeAndChainUs: number;
  /** SQLite: the append's head query, in µs, and with the head's chain hash read too (only when another process appended last). */
  headPlainUs: number;
  headChainedUs: number;
  /** Whole-store append of a run's commits, per event, p50 over rounds, chained (today's stores). */
  appendUs: number;
  /** `metadata.chain` bytes per event, and their share of the stored data + metadata. */
  chainBytes: number;
  chainShare: number;
  /** `audit`'s chain check over the whole log. */
  verifyEventsPerSecond: number;
  /** SQLite's `quick_check` at open, on this file. */
  quickCheckMs: number;
  fileMb: number;
}

const withoutChain = (e: RecordedEvent): NewEvent => {
  const { chain: _chain, ...metadata } = e.metadata as Record<string, unknown>;
  return { id: e.id, type: e.type, data: e.data, metadata };
};

/** Median µs per event of `work` over the events, repeated `rounds` times. */
function perEvent(rounds: number, events: number, work: () => void): number {
  const samples: number[] = [];
  for (let r = 0; r < rounds; r += 1) {
    const started = performance.now();
    work();
    samples.push(((performance.now() - started) * 1000) / events);
  }
  return percentile(samples, 50);
}

/**
 * `path` is a store written by the bench's runs: its events are serialised the way the stores did
 * before chaining and the way they do now, its heads looked up, its chain verified and its file
 * checked; then its run streams are appended again, commit by commit, to a fresh store in `scratch`.
 */
export async function measureChainCost(path: string, scratch: string, rounds = 15): Promise<ChainCost> {
  const store = createSqliteEventStore({ path });
  let log: RecordedEvent[];
  let verifyMs: number;
  try {
    log = await store.readAll();
    const started = performance.now();
    await verifyStoreChain(store);
    verifyMs = performance.now() - started;
  } finally {
    await store.close();
  }
  const events = log.map(withoutChain);
  const byStream = new Map<string, NewEvent[]>();
  for (const [i, e] of events.entries()) byStream.set(log[i].streamId, [...(byStream.get(log[i].streamId) ?? []), e]);

  let sink = 0;
  const serializeUs = perEvent(rounds, events.length, () => {
    for (const e of events) sink += JSON.stringify(e.data ?? null).length + JSON.stringify(e.metadata ?? null).length;
  });
  const serializeAndChainUs = perEvent(rounds, events.length, () => {
    for (const [stream, batch] of byStream) sink += chainBatch(stream, null, batch.map(chainContent)).metadata.length;
  });

  // The append's head query (index only), then the head's chain hash as read when this process did not append the head itself.
  const db = new DatabaseSync(path, { readOnly: true });
  const head = db.prepare('SELECT revision, position FROM events WHERE stream_id = ? ORDER BY revision DESC LIMIT 1');
  const hash = db.prepare("SELECT json_extract(metadata, '$.chain.hash') AS hash FROM events WHERE stream_id = ? AND revision = ?");
  const streams = [...byStream.keys()];
  const headPlainUs = perEvent(rounds, streams.length, () => {
    for (const stream of streams) sink += (head.get(stream) as { revision: number }).revision;
  });
  const headChainedUs = perEvent(rounds, streams.length, () => {
    for (const stream of streams)
      sink += String((hash.get(stream, (head.get(stream) as { revision: number }).revision) as { hash: string }).hash).length;
  });
  const checked = performance.now();
  db.prepare('PRAGMA quick_check').all();
  const quickCheckMs = performance.now() - checked;
  db.close();

  const appendUs = await appendCommits(log, scratch, rounds);
  const chainBytes =
    log.reduce((n, e) => n + JSON.stringify({ chain: (e.metadata as { chain: unknown }).chain }).length - 1, 0) / log.length;
  const storedBytes = log.reduce((n, e) => n + JSON.stringify(e.data).length + JSON.stringify(e.metadata).length, 0) / log.length;
  if (sink < 0) throw new Error('unreachable');
  return {
    events: log.length,
    serializeUs,
    serializeAndChainUs,
    headPlainUs,
    headChainedUs,
    appendUs,
    chainBytes,
    chainShare: chainBytes / storedBytes,
    verifyEventsPerSecond: log.length / (verifyMs / 1000),
    quickCheckMs,
    fileMb: statSync(path).size / 1e6,
  };
}

/** The log's events appended again as its writers committed them (a batch per commit), per event. */
async function appendCommits(log: RecordedEvent[], scratch: string, rounds: number): Promise<number> {
  const commits: { stream: string; events: NewEvent[] }[] = [];
  for (const e of log) {
    const last = commits.at(-1);
    const start = (e.metadata as { commitStart?: number }).commitStart;
    if (last && last.stream === e.streamId && start !== undefined && start !== Number(e.revision)) last.events.push(withoutChain(e));
    else commits.push({ stream: e.streamId, events: [withoutChain(e)] });
  }
  const samples: number[] = [];
  for (let r = 0; r < Math.min(rounds, 5); r += 1) {
    const store: EventStore = createSqliteEventStore({ path: `${scratch}-${r}.db` });
    const started = performance.now();
    for (const c of commits)
      await store.appendToStream(
        `${c.stream}-${r}`,
        c.events.map((e) => ({ ...e, id: randomUUID() })),
      );
    samples.push(((performance.now() - started) * 1000) / log.length);
    await store.close();
  }
  return percentile(samples, 50);
}

export function reportChainCost(print: (line: string) => void, c: ChainCost): void {
  const us = (n: number) => `${n.toFixed(2)} µs`;
  print(`hash chain (docs/decisions/0037), on the ${c.events} events of the runs above (${c.fileMb.toFixed(1)} MB file):`);
  print(
    `  serialise per event: ${us(c.serializeUs)} as before chaining, ${us(c.serializeAndChainUs)} with the chain (+${us(c.serializeAndChainUs - c.serializeUs)})`,
  );
  print(
    `  sqlite head query per append: ${us(c.headPlainUs)}, unchanged while this process appended the head; ${us(c.headChainedUs)} when another did (its chain hash read)`,
  );
  print(`  whole append per event, the log's commits appended again to a fresh file (chained): ${us(c.appendUs)}`);
  print(`  chain link: ${c.chainBytes.toFixed(0)} bytes per event (${(c.chainShare * 100).toFixed(1)}% of stored data + metadata)`);
  print(`  verify (audit): ${Math.round(c.verifyEventsPerSecond)} events/s; quick_check at open: ${c.quickCheckMs.toFixed(1)} ms`);
}
