import { Memory, MemoryReflectReply } from '@stagecraft/contracts';
import { recallMemories } from '@stagecraft/memory';

/** How many memories one reflection draws on, and how much of each (and of the query) it quotes. */
export const REFLECT_LIMIT = 10;
const QUOTE_CHARS = 200;

const quote = (text: string): string => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= QUOTE_CHARS ? line : `${line.slice(0, QUOTE_CHARS - 1)}…`;
};

/**
 * A first, honest reflection: the memories recall would pick for the query, listed with their ids.
 * It synthesises nothing and writes nothing; a later issue builds real reflection on top.
 */
export function reflectOn(memories: readonly Memory[], scope: string, query: string): MemoryReflectReply {
  const relevant = recallMemories(memories, query, { limit: REFLECT_LIMIT });
  if (relevant.length === 0) return { reflection: `No memory in scope ${scope} bears on "${quote(query)}".`, memoryIds: [] };
  const heading = `${relevant.length} ${relevant.length === 1 ? 'memory' : 'memories'} in scope ${scope} bear on "${quote(query)}":`;
  const lines = relevant.map((m) => `- [${m.memoryId}] (${m.tier}) ${quote(m.content)}`);
  return { reflection: [heading, ...lines].join('\n'), memoryIds: relevant.map((m) => m.memoryId) };
}
