import { RecalledMemory } from '@stagecraft/contracts';
import { PromptContributor } from './contributor';

const QUOTE_CHARS = 400;

const oneLine = (text: string): string => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= QUOTE_CHARS ? line : `${line.slice(0, QUOTE_CHARS - 1)}…`;
};

/** The recalled memories as a prompt section, each with its id and source; null when there are none. */
export function recalledMemoriesSection(recalled: readonly RecalledMemory[]): string | null {
  if (recalled.length === 0) return null;
  const lines = recalled.map((m) => {
    const source = m.runId ? `memory ${m.memoryId}, from run ${m.runId}` : `memory ${m.memoryId}`;
    return `- (${m.tier}; ${source}) ${oneLine(m.content)}`;
  });
  return [
    "## Recalled from this project's memory",
    "What earlier work left in memory that bears on the user's message, with the latest run outcomes, best match first. It describes the project as it was: confirm it against the current code before relying on it.",
    lines.join('\n'),
  ].join('\n\n');
}

/** Seed 001 §5: the memories recalled for this message (the conversation service recalls them for a run's first request). */
export const recalledMemoriesContributor: PromptContributor = {
  name: 'recalled-memories',
  agentTypes: 'all',
  priority: 90,
  contribute: ({ recalled }) => recalledMemoriesSection(recalled ?? []),
};
