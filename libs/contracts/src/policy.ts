import { z } from 'zod';
import { Stage, ToolName, UserMode } from './common';
import { AgentType } from './context';

export const ReasoningRule = z.enum(['none', 'macro', 'micro']);
export type ReasoningRule = z.infer<typeof ReasoningRule>;

/** No run delegates deeper than this (a run's own limit is lower); a longer chain is a bad request, not a policy question. */
export const MAX_DELEGATION_DEPTH = 8;

/** Who is speaking: the main agent, or a specialist it delegated to (seed 000). */
export const DelegationState = z
  .object({
    depth: z.number().int().min(0).max(MAX_DELEGATION_DEPTH),
    chain: z.array(AgentType).max(MAX_DELEGATION_DEPTH).describe('agent types from the main agent to the active specialist'),
  })
  .refine((d) => d.depth === d.chain.length, { message: 'depth must equal the length of chain', path: ['depth'] });
export type DelegationState = z.infer<typeof DelegationState>;
export const NO_DELEGATION: DelegationState = { depth: 0, chain: [] };

/** Memory operations a stage may offer the model as tools (seed 001); retain and reflect write, recall only reads. */
export const MemoryOperation = z.enum(['recall', 'retain', 'reflect']);
export type MemoryOperation = z.infer<typeof MemoryOperation>;

/** The complete decision for one stage: recorded in full on every StageEntered. */
export const StagePolicy = z.object({
  userMode: UserMode,
  reasoningEnabled: z.boolean(),
  stage: Stage,
  delegation: DelegationState,
  tools: z.array(ToolName),
  prompts: z.array(z.string().min(1)).describe('prompt ids in composition order'),
  reasoning: z.object({
    rule: ReasoningRule,
    required: z.boolean(),
  }),
  toolLoop: z.boolean().describe('whether tool calls from the model are executed in this stage'),
  memory: z.array(MemoryOperation).optional().describe('memory operations offered as tools in this stage; absent means none'),
  offered: z
    .array(ToolName)
    .optional()
    .describe(
      'the tools every model request of the run offers, the same in each stage so that requests share their prefix; the stage may call only `tools`, and a stage with none is asked with tool_choice "none". Absent (older logs): `tools` where the stage runs a tool loop, else none',
    ),
  runPrompts: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe(
      'how many of the leading `prompts` are the same in every stage of the run: a split assembly puts them in the system message, the rest after the history. Absent: none',
    ),
});
export type StagePolicy = z.infer<typeof StagePolicy>;

export const PolicyDecideRequest = z.object({
  userMode: UserMode,
  reasoningEnabled: z.boolean(),
  stage: Stage,
  delegation: DelegationState.default(NO_DELEGATION),
  /**
   * The workflow agent type whose run this is (its AgentBrief), absent for a person's run. Only a
   * `ticket-agent`, which works in its own copy, gets write and execute tools (docs/decisions/0036).
   */
  workflowAgentType: AgentType.optional(),
});
export type PolicyDecideRequest = z.infer<typeof PolicyDecideRequest>;
export const PolicyDecideReply = z.object({ policy: StagePolicy });
export type PolicyDecideReply = z.infer<typeof PolicyDecideReply>;

/** Every stage's policy for one run's switches: `policy.decide` for each stage, in one round trip. */
export const PolicyTableRequest = PolicyDecideRequest.omit({ stage: true });
export type PolicyTableRequest = z.infer<typeof PolicyTableRequest>;
export const PolicyTableReply = z.object({
  policies: z.array(StagePolicy).length(Stage.options.length).describe('one policy per stage, in the order of Stage'),
});
export type PolicyTableReply = z.infer<typeof PolicyTableReply>;
