import { chainOf, linkHash, recordedContent, streamGenesis } from './chain';
import type { EventReader, EventStoreKind, Position, RecordedEvent } from '../port';

/** What is wrong at the first broken link of a stream. */
export type ChainProblem =
  /** A revision is missing: an event was deleted (or the stream's revisions were rewritten). */
  | 'missing-revision'
  /** The event does not follow the one before it: one was deleted, reordered or moved in from elsewhere. */
  | 'prev-mismatch'
  /** The event's id, type, data or metadata is not what was hashed when it was appended. */
  | 'content-mismatch'
  /** No link where one is owed: after a chained event of the stream, or after the first chained event of the store. */
  | 'unchained';

export interface ChainBreak {
  stream: string;
  revision: bigint;
  position: Position;
  type: string;
  problem: ChainProblem;
  expected: string;
  found: string;
}

export interface ChainReport {
  streams: number;
  events: number;
  chained: number;
  /** Events written before streams were chained (a stream's leading events only): not verifiable, not a failure. */
  unchained: number;
  /** The first broken link of each broken stream, in log order; a stream is not checked past its first. */
  breaks: ChainBreak[];
}

interface StreamState {
  next: bigint;
  prev: string;
  chained: boolean;
  broken: boolean;
}

/**
 * Folds events, in log order, into a report of every stream's chain. Only a stream's leading events may
 * lack a link: from a stream's first chained event on, and anywhere after the first chained event of
 * the whole log (`global`, when the events fed are the whole log), a missing link is a break, so
 * stripping the links off a stream does not make it pass as an old one.
 */
export function createChainVerifier(options: { global?: boolean } = {}) {
  const streams = new Map<string, StreamState>();
  const breaks: ChainBreak[] = [];
  let events = 0;
  let chained = 0;
  let unchained = 0;
  let chainingBegan = false;

  function add(event: RecordedEvent): void {
    events += 1;
    let state = streams.get(event.streamId);
    if (!state) {
      state = { next: 0n, prev: streamGenesis(event.streamId), chained: false, broken: false };
      streams.set(event.streamId, state);
    }
    if (state.broken) return;
    const fail = (problem: ChainProblem, expected: string, found: string) => {
      state.broken = true;
      breaks.push({
        stream: event.streamId,
        revision: event.revision,
        position: event.position,
        type: event.type,
        problem,
        expected,
        found,
      });
    };
    if (event.revision !== state.next) return fail('missing-revision', `revision ${state.next}`, `revision ${event.revision}`);
    state.next += 1n;
    const link = chainOf(event.metadata);
    if (!link) {
      if (state.chained || (options.global && chainingBegan)) return fail('unchained', 'a chain link', 'none');
      unchained += 1;
      return;
    }
    if (link.prev !== state.prev) return fail('prev-mismatch', state.prev, link.prev);
    const hash = linkHash(link.prev, recordedContent(event));
    if (hash !== link.hash) return fail('content-mismatch', hash, link.hash);
    state.prev = link.hash;
    state.chained = true;
    chainingBegan = true;
    chained += 1;
  }

  const report = (): ChainReport => ({ streams: streams.size, events, chained, unchained, breaks: [...breaks] });
  return { add, report };
}

/** One stream's chain, e.g. one run's, from its events in revision order. */
export function verifyStreamChain(events: readonly RecordedEvent[]): ChainReport {
  const verifier = createChainVerifier();
  for (const event of events) verifier.add(event);
  return verifier.report();
}

/**
 * Every stream of the log, read once in log order a page at a time. `skipStream` leaves out streams
 * that are not part of the log proper (KurrentDB's capped checkpoint streams).
 */
export async function verifyLogChain(
  reader: Pick<EventReader, 'readAll'>,
  options: { pageSize?: number; skipStream?: (stream: string) => boolean } = {},
): Promise<ChainReport> {
  const verifier = createChainVerifier({ global: true });
  const pageSize = options.pageSize ?? 5_000;
  let from: Position | 'start' = 'start';
  for (;;) {
    const page = await reader.readAll({ fromPosition: from, maxCount: pageSize });
    for (const event of page) if (!options.skipStream?.(event.streamId)) verifier.add(event);
    if (page.length < pageSize) return verifier.report();
    from = page[page.length - 1].position;
  }
}

/** The whole store's chains. KurrentDB's checkpoints are capped `checkpoint-*` streams beside the log, not part of it. */
export function verifyStoreChain(store: Pick<EventReader, 'readAll'> & { kind: EventStoreKind }): Promise<ChainReport> {
  return verifyLogChain(store, { skipStream: store.kind === 'kurrentdb' ? (stream) => stream.startsWith('checkpoint-') : undefined });
}

/** The report's one-line summary. */
export function describeChainReport(report: ChainReport): string {
  const unchained = report.unchained > 0 ? `, ${report.unchained} written before chaining (not verifiable)` : '';
  const result = report.breaks.length === 0 ? 'intact' : `${report.breaks.length} broken stream(s)`;
  return `hash chain: ${report.chained} event(s) in ${report.streams} stream(s) verified${unchained}: ${result}`;
}

/** A hash's head is enough to tell two apart in a report. */
const short = (text: string) => (/^[\w-]{43}$/.test(text) ? `${text.slice(0, 12)}…` : text);

const PROBLEMS: Record<ChainProblem, string> = {
  'missing-revision': 'a revision is missing (an event was deleted)',
  'prev-mismatch': 'it does not follow the event before it (one was deleted, reordered or moved)',
  'content-mismatch': 'its content was changed after it was appended',
  unchained: 'it carries no chain link where one is owed',
};

/** One line naming the broken link: stream, revision, event type, what was expected and what was found. */
export function describeChainBreak(b: ChainBreak): string {
  return `stream ${b.stream}: revision ${b.revision} (${b.type}) breaks the hash chain: ${PROBLEMS[b.problem]}; expected ${short(b.expected)}, found ${short(b.found)}`;
}
