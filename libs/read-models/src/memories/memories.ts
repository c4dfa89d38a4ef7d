import { EventData, Memory, MemorySource, MemoryTier } from '@stagecraft/contracts';
import type { Projection, RecordedEvent } from '@stagecraft/contracts';
import { entryOf } from '../logged';

/** Lower-cased words (letters, digits, `_`), as the fold indexes a memory and recall splits a query. */
export const memoryTerms = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];

/** An edge reflection recorded between two memories of a scope. */
export interface MemoryLink {
  from: string;
  to: string;
  kind: 'related' | 'duplicate';
  score: number;
}

/** One retained memory with what ranking needs: its term counts and length, computed once in the fold. */
export interface MemoryEntry {
  memoryId: string;
  tier: MemoryTier;
  content: string;
  tags: string[];
  source?: MemorySource;
  /** Log position of its `MemoryRetained`, as a decimal string. */
  position: string;
  terms: Record<string, number>;
  length: number;
  /** Why it was withdrawn; absent while it is live. */
  retracted?: string;
  /**
   * Retained inside a run the log has not shown ending `DONE` (seed 002 §8.2): kept, never recalled.
   * Cleared when that run completes `DONE`; a run that fails, ends `NEEDS_WORK` or stops leaves it so.
   */
  provisional?: true;
}

/**
 * One scope's memories: every entry ever retained (retracted and provisional ones kept, for audit), the
 * live ones in the order they began to count, and the statistics BM25 needs.
 */
export interface ScopeMemories {
  scope: string;
  memories: Record<string, MemoryEntry>;
  live: string[];
  /** In how many live memories each term occurs. */
  documentFrequency: Record<string, number>;
  /** Sum of the live memories' lengths in terms. */
  totalLength: number;
  links: MemoryLink[];
  position: string;
}

/** A memory retained inside a run, waiting for that run to end `DONE`. */
export interface ProvisionalMemory {
  scope: string;
  memoryId: string;
}

export interface MemoriesView {
  scopes: Record<string, ScopeMemories>;
  /** Runs the log showed completing `DONE`: a memory from one of them counts at once. */
  doneRuns?: Record<string, true>;
  /** The provisional memories of each run not seen ending `DONE`. */
  provisional?: Record<string, ProvisionalMemory[]>;
}

const MEMORY_STREAM = 'memory-';
const RUN_STREAM = 'run-';

const emptyScope = (scope: string): ScopeMemories => ({
  scope,
  memories: {},
  live: [],
  documentFrequency: {},
  totalLength: 0,
  links: [],
  position: '0',
});

function countTerms(terms: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const term of terms) counts[term] = (entryOf(counts, term) ?? 0) + 1;
  return counts;
}

function shiftFrequencies(frequency: Record<string, number>, terms: Record<string, number>, by: 1 | -1): Record<string, number> {
  const next = { ...frequency };
  for (const term of Object.keys(terms)) {
    const count = (entryOf(next, term) ?? 0) + by;
    if (count > 0) next[term] = count;
    else delete next[term];
  }
  return next;
}

/** The entry made live: counted in ranking and statistics from `position` on. */
function counted(scope: ScopeMemories, entry: MemoryEntry, position: string): ScopeMemories {
  return {
    ...scope,
    memories: { ...scope.memories, [entry.memoryId]: entry },
    live: [...scope.live, entry.memoryId],
    documentFrequency: shiftFrequencies(scope.documentFrequency, entry.terms, 1),
    totalLength: scope.totalLength + entry.length,
    position,
  };
}

/**
 * One memory event folded into its scope. Returns a new scope; the one given is not changed. A retain
 * folded as `provisional` is kept out of ranking until `confirmMemory`.
 */
export function evolveScope(
  scope: ScopeMemories,
  event: Pick<RecordedEvent, 'type' | 'data' | 'position'>,
  provisional = false,
): ScopeMemories {
  const position = event.position.toString();
  switch (event.type) {
    case 'MemoryRetained': {
      const data = event.data as EventData<'MemoryRetained'>;
      if (entryOf(scope.memories, data.memoryId)) return scope;
      const words = memoryTerms(`${data.content} ${data.tags.join(' ')}`);
      const entry: MemoryEntry = {
        memoryId: data.memoryId,
        tier: data.tier,
        content: data.content,
        tags: [...data.tags],
        ...(data.source ? { source: { ...data.source } } : {}),
        position,
        terms: countTerms(words),
        length: words.length,
      };
      if (provisional) return { ...scope, memories: { ...scope.memories, [entry.memoryId]: { ...entry, provisional: true } }, position };
      return counted(scope, entry, position);
    }
    case 'MemoryRetracted': {
      const { memoryId, reason } = event.data as EventData<'MemoryRetracted'>;
      const entry = entryOf(scope.memories, memoryId);
      if (!entry || entry.retracted !== undefined) return scope;
      // Never counted, so nothing to take out of the statistics; it stays withdrawn if its run ends DONE.
      if (entry.provisional) return { ...scope, memories: { ...scope.memories, [memoryId]: { ...entry, retracted: reason } }, position };
      return {
        ...scope,
        memories: { ...scope.memories, [memoryId]: { ...entry, retracted: reason } },
        live: scope.live.filter((id) => id !== memoryId),
        documentFrequency: shiftFrequencies(scope.documentFrequency, entry.terms, -1),
        totalLength: scope.totalLength - entry.length,
        position,
      };
    }
    case 'MemoryLinked': {
      const { from, to, kind, score } = event.data as EventData<'MemoryLinked'>;
      if (scope.links.some((l) => l.from === from && l.to === to && l.kind === kind)) return scope;
      return { ...scope, links: [...scope.links, { from, to, kind, score }], position };
    }
    default:
      return scope;
  }
}

/** A provisional memory made live, when its run ended `DONE`; a retracted or unknown one is left as it is. */
export function confirmMemory(scope: ScopeMemories, memoryId: string, position: string): ScopeMemories {
  const entry = entryOf(scope.memories, memoryId);
  if (!entry?.provisional || entry.retracted !== undefined) return scope;
  const { provisional: _confirmed, ...live } = entry;
  return counted(scope, live, position);
}

/** The run a memory was retained inside: a retain that names a run counts once that run ends `DONE`. */
const runOfRetain = (event: RecordedEvent): string | undefined =>
  event.type === 'MemoryRetained' ? (event.data as EventData<'MemoryRetained'>).source?.runId : undefined;

/** A run's `RunCompleted` with `DONE`: its memories count from here on, and any it retains later at once. */
function runDone(view: MemoriesView, runId: string, position: string): MemoriesView {
  (view.doneRuns ??= {})[runId] = true;
  const waiting = entryOf(view.provisional ?? {}, runId);
  if (!waiting) return view;
  for (const { scope, memoryId } of waiting) {
    const memories = entryOf(view.scopes, scope);
    if (memories) view.scopes[scope] = confirmMemory(memories, memoryId, position);
  }
  delete view.provisional?.[runId];
  return view;
}

/**
 * Every scope's memories, from the `memory-<scope>` streams: what recall ranks and reflection links.
 * A memory retained inside a run (its source names the run: what the model retains with
 * `memory_retain`) is provisional until the log shows that run's `RunCompleted` with `DONE` (seed 002
 * §8.2: memories are written when a run completes successfully); one retained directly, by a user or
 * a client, counts at once. The fold replaces one scope's entry in place and never changes an entry
 * it handed out.
 */
export const memoriesModel: Projection<MemoriesView> = {
  name: 'memory-memories',
  handles: ['MemoryRetained', 'MemoryRetracted', 'MemoryLinked', 'RunCompleted'],
  initialState: () => ({ scopes: {}, doneRuns: {}, provisional: {} }),
  evolve(view, event) {
    if (event.type === 'RunCompleted') {
      if (!event.streamId.startsWith(RUN_STREAM) || (event.data as EventData<'RunCompleted'>).deliveryState !== 'DONE') return view;
      return runDone(view, event.streamId.slice(RUN_STREAM.length), event.position.toString());
    }
    if (!event.streamId.startsWith(MEMORY_STREAM)) return view;
    const id = event.streamId.slice(MEMORY_STREAM.length);
    const before = entryOf(view.scopes, id) ?? emptyScope(id);
    const runId = runOfRetain(event);
    const provisional = runId !== undefined && !entryOf(view.doneRuns ?? {}, runId);
    const after = evolveScope(before, event, provisional);
    view.scopes[id] = after;
    if (provisional && after !== before) {
      const waiting = (view.provisional ??= {});
      waiting[runId] = [...(entryOf(waiting, runId) ?? []), { scope: id, memoryId: (event.data as EventData<'MemoryRetained'>).memoryId }];
    }
    return view;
  },
};

/** The memory as the contracts give it. */
export const memoryOf = (scope: string, entry: MemoryEntry): Memory => ({
  memoryId: entry.memoryId,
  scope,
  tier: entry.tier,
  content: entry.content,
  tags: entry.tags,
  ...(entry.source ? { source: entry.source } : {}),
});

/** The live memories of a scope, oldest first, of one tier when given. */
export function liveMemories(scope: ScopeMemories | undefined, tier?: MemoryTier): MemoryEntry[] {
  if (!scope) return [];
  return scope.live.map((id) => scope.memories[id]).filter((m) => tier === undefined || m.tier === tier);
}

const K1 = 1.2;

/**
 * Words a question is made of that say nothing of what it asks about: left out of a query (not of the
 * index, so the view is unchanged), lest every memory with a "the" or a "what" match it.
 */
const QUESTION_WORDS = new Set(
  'a an and are as at be by can could did do does for from had has have how i in is it its me my of on or our should so that the their there these this to us was we were what when where which who why will with would you your'.split(
    ' ',
  ),
);

/** A query's distinct words without the question words; all of them when nothing else is left. */
function queryTerms(query: string): string[] {
  const terms = [...new Set(memoryTerms(query))];
  const telling = terms.filter((t) => !QUESTION_WORDS.has(t));
  return telling.length > 0 ? telling : terms;
}
const B = 0.75;

/**
 * Okapi BM25 of each live memory (of the tier, when given) against the query, best first; ties go to
 * the newer memory. Memories sharing no term with the query are left out. Deterministic.
 */
export function rankMemories(
  scope: ScopeMemories | undefined,
  query: string,
  options: { tier?: MemoryTier; limit: number },
): (Memory & { score: number })[] {
  if (!scope || scope.live.length === 0) return [];
  const terms = queryTerms(query);
  const count = scope.live.length;
  const averageLength = scope.totalLength / count || 1;
  const idf = new Map(
    terms.map((t) => {
      const df = entryOf(scope.documentFrequency, t) ?? 0;
      return [t, Math.log(1 + (count - df + 0.5) / (df + 0.5))] as const;
    }),
  );
  return liveMemories(scope, options.tier)
    .map((entry, index) => {
      let score = 0;
      for (const term of terms) {
        const tf = entryOf(entry.terms, term) ?? 0;
        if (tf === 0) continue;
        score += (idf.get(term) ?? 0) * ((tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * entry.length) / averageLength)));
      }
      return { entry, index, score };
    })
    .filter((m) => m.score > 0)
    .sort((a, b) => b.score - a.score || b.index - a.index)
    .slice(0, options.limit)
    .map(({ entry, score }) => ({ ...memoryOf(scope.scope, entry), score: Number(score.toFixed(4)) }));
}

/**
 * Reciprocal rank fusion of rankings (each best first): a memory's score is the sum of 1 / (60 + rank)
 * over the rankings it appears in. Ties keep the order of the first ranking.
 */
export function fuseRankings(rankings: readonly (readonly string[])[], limit: number): { memoryId: string; score: number }[] {
  const scores = new Map<string, number>();
  for (const ranking of rankings) ranking.forEach((id, rank) => scores.set(id, (scores.get(id) ?? 0) + 1 / (60 + rank + 1)));
  const order = [...scores.keys()];
  return order
    .map((memoryId, index) => ({ memoryId, index, score: scores.get(memoryId) ?? 0 }))
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, limit)
    .map(({ memoryId, score }) => ({ memoryId, score: Number(score.toFixed(6)) }));
}

/** How many of the newest run outcomes every recall weighs in, whatever its words (docs/decisions/0058). */
export const RECENT_OUTCOMES = 3;

/**
 * The newest live run outcomes, newest first: what "what changed lately?" asks about, which shares no
 * word with the outcomes it means. Empty when a tier other than `run_outcome` is asked for.
 */
export function recentOutcomes(scope: ScopeMemories | undefined, options: { tier?: MemoryTier; limit: number }): Memory[] {
  if (!scope || (options.tier !== undefined && options.tier !== 'run_outcome')) return [];
  return liveMemories(scope, 'run_outcome')
    .slice(-options.limit)
    .reverse()
    .map((entry) => memoryOf(scope.scope, entry));
}

/**
 * Rankings taken in turns, each memory once: the first of each, then the second of each, and so on.
 * A memory scores 1 / (60 + rank) by the rank it was taken at. Unlike a sum of reciprocal ranks, a
 * memory two rankings hold weakly (a recent outcome sharing one common word) cannot push the best of
 * either out.
 */
export function interleaveRankings(rankings: readonly (readonly string[])[], limit: number): { memoryId: string; score: number }[] {
  const taken = new Map<string, number>();
  const longest = Math.max(0, ...rankings.map((r) => r.length));
  for (let rank = 0; rank < longest && taken.size < limit; rank++) {
    for (const ranking of rankings) {
      const id = ranking[rank];
      if (id !== undefined && !taken.has(id) && taken.size < limit) taken.set(id, Number((1 / (60 + rank + 1)).toFixed(6)));
    }
  }
  return [...taken].map(([memoryId, score]) => ({ memoryId, score }));
}

/**
 * What recall answers (docs/decisions/0058): three rankings taken in turns: the lexical one (BM25), the
 * newest run outcomes, and, when a semantic ranking is given, its fusion with the lexical one by
 * reciprocal rank. So the best word match leads, the latest outcome follows whatever the words, and an
 * embedding model adds what shares meaning but no word; a poor one cannot push the best word match out.
 */
export function recallRanking(
  scope: ScopeMemories | undefined,
  query: string,
  options: { tier?: MemoryTier; limit: number; semantic?: readonly string[] },
): (Memory & { score: number })[] {
  if (!scope) return [];
  const depth = Math.max(options.limit, 10);
  const lexical = rankMemories(scope, query, { tier: options.tier, limit: depth }).map((m) => m.memoryId);
  const recent = recentOutcomes(scope, { tier: options.tier, limit: RECENT_OUTCOMES }).map((m) => m.memoryId);
  const rankings = [lexical, recent];
  if (options.semantic) rankings.push(fuseRankings([lexical, options.semantic], depth).map((m) => m.memoryId));
  return interleaveRankings(rankings, options.limit).map(({ memoryId, score }) => ({
    ...memoryOf(scope.scope, scope.memories[memoryId]),
    score,
  }));
}
