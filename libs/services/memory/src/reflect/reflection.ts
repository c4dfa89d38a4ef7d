import { Memory, MemoryTier } from '@stagecraft/contracts';
import { MemoryLink, ScopeMemories, entryOf, memoryTerms, rankMemories } from '@stagecraft/read-models';

/** How many memories one reflection draws on, and how much of each (and of the query) it quotes. */
export const REFLECT_LIMIT = 10;
/** Term-set overlap (Jaccard) from which two memories are related, and from which (same tier) one duplicates the other. */
export const RELATED_AT = 0.2;
export const DUPLICATE_AT = 0.8;
const QUOTE_CHARS = 200;

const quote = (text: string): string => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= QUOTE_CHARS ? line : `${line.slice(0, QUOTE_CHARS - 1)}…`;
};

const jaccard = (a: ReadonlySet<string>, b: ReadonlySet<string>): number => {
  let shared = 0;
  for (const t of a) if (b.has(t)) shared++;
  const union = a.size + b.size - shared;
  return union === 0 ? 0 : shared / union;
};

export interface ReflectionPlan {
  memories: (Memory & { score: number })[];
  /** New edges only: pairs already linked are not linked again. `duplicate` merges `from` (the newer) into `to`. */
  links: MemoryLink[];
}

/**
 * What reflecting on a query does, decided from the view alone: the memories recall would pick,
 * and between each pair of them an edge when their words overlap enough: `duplicate` when they share
 * a tier and nearly all words (the newer is merged into the older), `related` otherwise.
 */
export function planReflection(scope: ScopeMemories | undefined, query: string): ReflectionPlan {
  const memories = rankMemories(scope, query, { limit: REFLECT_LIMIT });
  if (!scope) return { memories, links: [] };
  const order = (id: string) => scope.live.indexOf(id);
  const known = new Set(scope.links.map((l) => `${l.from}>${l.to}`));
  const words = new Map(memories.map((m) => [m.memoryId, new Set(memoryTerms(`${m.content} ${m.tags.join(' ')}`))]));
  const merged = new Set<string>();
  const links: MemoryLink[] = [];
  const sorted = [...memories].sort((a, b) => order(a.memoryId) - order(b.memoryId));
  for (let i = 0; i < sorted.length; i++) {
    for (let j = i + 1; j < sorted.length; j++) {
      const [older, newer] = [sorted[i], sorted[j]];
      if (merged.has(older.memoryId) || merged.has(newer.memoryId)) continue;
      if (known.has(`${newer.memoryId}>${older.memoryId}`)) continue;
      const score = Number(jaccard(words.get(older.memoryId)!, words.get(newer.memoryId)!).toFixed(4));
      if (score < RELATED_AT) continue;
      const tier: MemoryTier = entryOf(scope.memories, older.memoryId)!.tier;
      const duplicate = score >= DUPLICATE_AT && tier === newer.tier;
      if (duplicate) merged.add(newer.memoryId);
      links.push({ from: newer.memoryId, to: older.memoryId, kind: duplicate ? 'duplicate' : 'related', score });
    }
  }
  return { memories: memories.filter((m) => !merged.has(m.memoryId)), links };
}

/** The reflection as the model reads it: the memories with their ids and sources, then what was linked or merged. */
export function reflectionText(plan: ReflectionPlan, scope: string, query: string): string {
  const { memories, links } = plan;
  if (memories.length === 0) return `No memory in scope ${scope} bears on "${quote(query)}".`;
  const heading = `${memories.length} ${memories.length === 1 ? 'memory' : 'memories'} in scope ${scope} bear on "${quote(query)}":`;
  const lines = memories.map(
    (m) => `- [${m.memoryId}] (${m.tier}${m.source?.runId ? `, from run ${m.source.runId}` : ''}) ${quote(m.content)}`,
  );
  const edges = links.map((l) =>
    l.kind === 'duplicate' ? `- merged ${l.from} into ${l.to} (overlap ${l.score})` : `- linked ${l.from} to ${l.to} (overlap ${l.score})`,
  );
  return [heading, ...lines, ...(edges.length > 0 ? ['Connections recorded:', ...edges] : ['No new connection.'])].join('\n');
}
