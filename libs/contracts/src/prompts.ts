import { z } from 'zod';
import { Instruction } from './instructions';
import { StagePolicy } from './policy';
import { PreviousAttempt, UpstreamContext } from './upstream';
import { WorkflowStep } from './workflows';

export const PromptVariables = z.object({
  project_root: z.string().optional(),
  user_input: z.string().optional(),
  tool_summary: z.string().optional(),
  last_step_outcome: z.string().optional(),
});
export type PromptVariables = z.infer<typeof PromptVariables>;

/** A memory recalled for the user's message, with its source, as the warmup prompt shows it. */
export const RecalledMemory = z.object({
  memoryId: z.string().min(1),
  tier: z.enum(['project', 'architecture', 'run_outcome']),
  content: z.string(),
  runId: z.string().min(1).optional().describe('the run the memory came from'),
});
export type RecalledMemory = z.infer<typeof RecalledMemory>;

/**
 * Seed 001 §4: what a prompt contributor declares about itself, without its code: which agent types it
 * serves, where its section goes (lower priority comes first, ties by name) and what it adds.
 */
export const PromptContributorDescriptor = z.object({
  name: z.string().trim().min(1),
  agentTypes: z.union([z.array(z.string().trim().min(1)).min(1), z.literal('all')]),
  priority: z.number().int(),
  description: z.string().optional(),
});
export type PromptContributorDescriptor = z.infer<typeof PromptContributorDescriptor>;

/**
 * Caps on what callers fill, far above what runs send (measured: 15 upstream contexts, a few
 * instructions): zod checks a length before the items, so an oversized list costs one issue, not one
 * per item (docs/decisions/0012, 0034).
 */
export const PROMPT_REQUEST_LIMITS = { instructions: 64, upstream: 256, completedSteps: 1_000 } as const;

export const PromptAssembleRequest = z.object({
  policy: StagePolicy,
  variables: PromptVariables,
  instructions: z.array(Instruction).max(PROMPT_REQUEST_LIMITS.instructions).default([]),
  agentType: z.string().min(1).default('main'),
  upstream: z
    .array(UpstreamContext)
    .max(PROMPT_REQUEST_LIMITS.upstream)
    .optional()
    .describe('what the agents before this one produced (seed 001); absent or empty adds nothing'),
  previousAttempt: PreviousAttempt.optional().describe('set on a rerun only: the attempt being repeated (seed 001)'),
  recalled: z
    .array(RecalledMemory)
    .max(20)
    .optional()
    .describe("memories the conversation service recalled for the user's message (warmup); absent or empty adds nothing"),
  projectMap: z
    .string()
    .max(4000)
    .optional()
    .describe("the project's layout and entry points from its codebase index (warmup); absent or empty adds nothing"),
  maxDelegationDepth: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe(
      "the run's delegation depth limit: the acting stages of an agent run describe `<delegate-reasoning>` while the active depth is below it (docs/decisions/0057); absent: delegation is not described",
    ),
  layout: z
    .enum(['whole', 'split'])
    .optional()
    .describe(
      'absent or `whole`: all in `system`; `split`: what is the same for the whole run (the policy\'s `runPrompts` leading prompts, run-wide contributors) in `system`, the rest in `stage`, sent after the history (docs/decisions/0052)',
    ),
});
export type PromptAssembleRequest = z.infer<typeof PromptAssembleRequest>;

export const PromptAssembleReply = z.object({
  system: z.string(),
  stage: z.string().optional().describe('with `layout: split`: the per-stage part, sent as the last message; absent: all of it is in `system`'),
  promptIds: z.array(z.string()),
  hash: z.string().regex(/^[a-f0-9]{64}$/),
});
export type PromptAssembleReply = z.infer<typeof PromptAssembleReply>;

export const WorkflowNextRequest = z.object({
  workflowId: z.string().min(1),
  completedSteps: z
    .array(z.string().min(1))
    .max(PROMPT_REQUEST_LIMITS.completedSteps)
    .default([])
    .describe('ids of the steps already done, in any order'),
});
export type WorkflowNextRequest = z.infer<typeof WorkflowNextRequest>;

/** Seed 004's `workflow_next`: the first step not yet done, or `step: null` once every step is. */
export const WorkflowNextReply = z.object({
  step: WorkflowStep.nullable().describe('the step as defined; only its title and prompt are for the user'),
  guidance: z.object({
    prompt: z.string().describe('for the model: "## Agent Role", then "## Step Guidance", then the step prompt'),
  }),
  isComplete: z.boolean(),
});
export type WorkflowNextReply = z.infer<typeof WorkflowNextReply>;
