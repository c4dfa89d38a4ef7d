import { MemoryOperation, ReasoningRule, Stage, ToolClass, UserMode } from '@stagecraft/contracts';

/**
 * Tool classes per stage in agent mode.
 * - warmup plans and does not act: it is one bounded model call per user message whose macro
 *   `Research` and `Action` sections name what to inspect and which calls come first; `act` then runs
 *   them with micro reasoning after each step. Reads during warmup would open a second tool loop
 *   whose results arrive before any step reasoning, and make warmup's cost depend on the model.
 * - delivery_check decides DONE / NEEDS_WORK from what already happened: no tools, ever.
 * - qa_review is advisory and read-only (seed 002 §2.3, §6.2).
 */
const agentToolClasses: Record<Stage, readonly ToolClass[]> = {
  warmup: [],
  act: ['read_only', 'write', 'execute'],
  tool_followup: ['read_only', 'write', 'execute'],
  delivery_check: [],
  qa_review: ['read_only'],
};

/** Recall reads; retain and reflect write to memory, so only the acting stages get them. */
const agentMemory: Record<Stage, readonly MemoryOperation[]> = {
  warmup: [],
  act: ['recall', 'retain', 'reflect'],
  tool_followup: ['recall', 'retain', 'reflect'],
  delivery_check: [],
  qa_review: ['recall'],
};

/**
 * Chat mode gets no tools in any stage, read-only ones included (docs/decisions/0002-chat-mode-tools.md):
 * chat has no tool loop, and a tool offered in a stage whose calls are never executed only invites calls
 * that go nowhere. Answering from the conversation is what the user chose when they picked chat.
 */
export function toolClassesFor(mode: UserMode, stage: Stage, workflowAgentType?: string): readonly ToolClass[] {
  if (mode !== 'agent') return [];
  const classes = agentToolClasses[stage];
  return writesProject(workflowAgentType) ? classes : classes.filter((c) => c === 'read_only' || c === 'memory');
}

/**
 * Whether a run may change the project (docs/decisions/0036): a person's run may, and of a workflow's
 * agents only a ticket agent, which works in its own copy that the workflow merges back. Discovery,
 * planning, orchestrators, collectors and steps run in the real root, so they read and never write
 * nor run commands (two discovery agents once wrote into the root side by side).
 */
export const writesProject = (workflowAgentType: string | undefined): boolean =>
  workflowAgentType === undefined || workflowAgentType === TICKET_AGENT_TYPE;

/** The one workflow agent type that writes. */
export const TICKET_AGENT_TYPE = 'ticket-agent';

export function memoryFor(mode: UserMode, stage: Stage): MemoryOperation[] {
  return mode === 'agent' ? [...agentMemory[stage]] : [];
}

/**
 * Reasoning follows the user's switch on every stage (seed 002 §2.2, §9.2): off means no reasoning prompt
 * at all, on means a required block. Agent warmup plans with the macro format; every later step, the
 * delivery gate, QA and all of chat use the short micro format.
 */
export function reasoningFor(mode: UserMode, stage: Stage, reasoningEnabled: boolean): { rule: ReasoningRule; required: boolean } {
  if (!reasoningEnabled) return { rule: 'none', required: false };
  return { rule: mode === 'agent' && stage === 'warmup' ? 'macro' : 'micro', required: true };
}
