import { MemoryOperation } from '@stagecraft/contracts';

/** The tool names under which a stage's memory operations are offered to the model. */
export const MEMORY_TOOL_NAMES: Readonly<Record<MemoryOperation, string>> = Object.freeze({
  recall: 'memory_recall',
  retain: 'memory_retain',
  reflect: 'memory_reflect',
});
