import { Memory, MemoryTier } from '@stagecraft/contracts';

const tokenize = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];

/**
 * Scores memories by the share of query terms they contain (tags count as content).
 * Deterministic: equal scores keep the order in which the memories were retained.
 */
export function recallMemories(
  memories: readonly Memory[],
  query: string,
  options: { limit: number; tier?: MemoryTier },
): (Memory & { score: number })[] {
  const terms = [...new Set(tokenize(query))];
  if (terms.length === 0) return [];
  return memories
    .filter((m) => !options.tier || m.tier === options.tier)
    .map((memory, index) => {
      const words = new Set(tokenize(`${memory.content} ${memory.tags.join(' ')}`));
      const hits = terms.filter((t) => words.has(t)).length;
      return { memory, index, score: hits / terms.length };
    })
    .filter((m) => m.score > 0)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, options.limit)
    .map(({ memory, score }) => ({ ...memory, score: Number(score.toFixed(4)) }));
}
