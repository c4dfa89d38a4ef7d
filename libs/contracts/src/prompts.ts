import { z } from 'zod';
import { Instruction } from './instructions';
import { StagePolicy } from './policy';

export const PromptVariables = z.object({
  project_root: z.string().optional(),
  user_input: z.string().optional(),
  tool_summary: z.string().optional(),
  last_step_outcome: z.string().optional(),
});
export type PromptVariables = z.infer<typeof PromptVariables>;

export const PromptAssembleRequest = z.object({
  policy: StagePolicy,
  variables: PromptVariables,
  instructions: z.array(Instruction).default([]),
  agentType: z.string().min(1).default('main'),
});
export type PromptAssembleRequest = z.infer<typeof PromptAssembleRequest>;

export const PromptAssembleReply = z.object({
  system: z.string(),
  promptIds: z.array(z.string()),
  hash: z.string().regex(/^[a-f0-9]{64}$/),
});
export type PromptAssembleReply = z.infer<typeof PromptAssembleReply>;

export const WorkflowNextRequest = z.object({
  workflowId: z.string().min(1),
  completedSteps: z.number().int().min(0),
});
export type WorkflowNextRequest = z.infer<typeof WorkflowNextRequest>;

export const WorkflowNextReply = z.object({
  step: z.number().int().min(0),
  guidance: z.object({ prompt: z.string() }),
  isComplete: z.boolean(),
});
export type WorkflowNextReply = z.infer<typeof WorkflowNextReply>;
