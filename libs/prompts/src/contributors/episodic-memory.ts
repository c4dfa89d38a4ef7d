import { MemoryOperation, StagePolicy, ToolName } from '@stagecraft/contracts';
import { PromptContributor } from './contributor';
import { MEMORY_TOOL_NAMES } from './memory-tools';

const tool = (op: MemoryOperation) => `\`${MEMORY_TOOL_NAMES[op]}\``;

/** Seed 001 §5, with seed 002 §8's write policy and tiers folded into RETAIN. */
const sections: Record<MemoryOperation, string> = {
  retain: `### RETAIN: store new episodes (${tool('retain')})
Use RETAIN when you establish something worth knowing next time:
- important patterns or decisions, such as an architecture choice (tier \`architecture\`);
- stable project facts and key code structures, such as paths, build and test commands (tier \`project\`);
- a successful approach to a problem, once the work is verified (tier \`project\`).
Recent run outcomes (tier \`run_outcome\`) are retained for you when a run completes with DONE: do not retain those yourself.
Retain only what is settled: after the work succeeded, or once a decision is stable. Never store guesses or half-finished state. Keep each memory short (one to three sentences), self-contained and easy to search for: say what was done and why, and tag the entities involved (files, modules, commands). The time is recorded for you.`,
  reflect: `### REFLECT: build connections (${tool('reflect')}). This matters most.
Retaining alone is not enough: reflection builds the connections that turn separate episodes into lasting knowledge. Use REFLECT:
- after completing a significant action, to consolidate what you learned;
- when you see a connection to earlier work, to strengthen that link;
- before moving on to the next phase of the task.
Without reflection, memories stay isolated and are far less useful later.`,
  recall: `### RECALL: retrieve prior knowledge (${tool('recall')})
Use RECALL at the start of a task or a review, before exploring the code, to:
- find similar earlier work and how it turned out;
- retrieve relevant patterns and project facts (paths, commands, conventions);
- understand the history and decisions behind the code you are about to touch.
A memory describes the project as it was: confirm it against the current code before relying on it.`,
};

/** The seed's section order; the flow line shows the order of use. */
const SECTION_ORDER: readonly MemoryOperation[] = ['retain', 'reflect', 'recall'];
const FLOW_ORDER: readonly MemoryOperation[] = ['recall', 'retain', 'reflect'];
const FLOW_LABEL: Record<MemoryOperation, string> = { recall: 'RECALL → work', retain: 'RETAIN key learnings', reflect: 'REFLECT on connections' };

export function episodicMemoryGuidance(granted: readonly MemoryOperation[]): string | null {
  const ops = SECTION_ORDER.filter((op) => granted.includes(op));
  if (ops.length === 0) return null;
  const intro = `## Episodic memory\n\nThis project keeps an episodic memory across conversations. This run can use ${FLOW_ORDER.filter((op) => granted.includes(op)).map(tool).join(', ')}.`;
  const readOnly = ops.length === 1 && ops[0] === 'recall' ? ' Memory is read-only here: recall what helps, store nothing.' : '';
  const flow = ops.length > 1 ? [`**Recommended flow**: ${FLOW_ORDER.filter((op) => granted.includes(op)).map((op) => FLOW_LABEL[op]).join(' → ')}`] : [];
  return [intro + readOnly, ...ops.map((op) => sections[op]), ...flow].join('\n\n');
}

/**
 * The memory operations the run's requests offer as tools (`policy.offered`, the same in every stage:
 * docs/decisions/0052), else, in policies recorded before, the stage's own.
 */
const offeredMemory = (policy: StagePolicy): MemoryOperation[] =>
  policy.offered
    ? FLOW_ORDER.filter((op) => policy.offered?.includes(MEMORY_TOOL_NAMES[op] as ToolName))
    : [...(policy.memory ?? [])];

/** Applies only where the run's requests offer memory operations; says nothing about the ones they do not. */
export const episodicMemoryContributor: PromptContributor = {
  name: 'episodic-memory',
  agentTypes: 'all',
  priority: 100,
  runWide: true,
  appliesTo: (policy) => offeredMemory(policy).length > 0,
  contribute: ({ policy }) => episodicMemoryGuidance(offeredMemory(policy)),
};
