import { z } from 'zod';
import { NonBlank } from './common';

const Slug = z.string().regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'lower-case words joined by "-"');

const AGENT_INSTRUCTIONS_IN_PROMPT = /^#{1,6}\s*agent role\b|\*\*agent'?s role:?\*\*/im;

/** Seed 004: `prompt` is shown to the user; `agentRole` and `guidance` are for the model only. */
export const WorkflowStep = z
  .strictObject({
    id: Slug,
    title: NonBlank.describe('shown to the user'),
    prompt: NonBlank.describe('user-facing content: what the user should do or understand in this step; shown to the user as it is'),
    agentRole: z
      .string()
      .min(10)
      .max(1024)
      .refine((role) => role.trim().length > 0, 'agentRole is blank')
      .optional()
      .describe(
        'Optional behavioral instructions for AI agents defining how they should approach and execute this step. This content is not shown to users.',
      ),
    guidance: z.array(NonBlank).optional().describe('tactical hints for the agent, listed under "## Step Guidance"'),
  })
  .superRefine((step, ctx) => {
    // The user sees `prompt` as it is, so agent instructions mixed into it would reach the user (seed 004's migration).
    const role = step.agentRole?.trim() ?? '';
    if (role.length > 0 && step.prompt.includes(role)) {
      ctx.addIssue({ code: 'custom', path: ['prompt'], message: 'the prompt repeats the agentRole, which must never be shown to users' });
    }
    if (AGENT_INSTRUCTIONS_IN_PROMPT.test(step.prompt)) {
      ctx.addIssue({ code: 'custom', path: ['prompt'], message: 'agent instructions belong in agentRole, not in the user-facing prompt' });
    }
  });
export type WorkflowStep = z.infer<typeof WorkflowStep>;

/** One file under `workflows/`; its `id` is its file name without `.json`. */
export const WorkflowDefinition = z
  .strictObject({
    $schema: z.string().optional(),
    id: Slug,
    name: NonBlank,
    description: NonBlank,
    version: z.string().regex(/^\d+\.\d+\.\d+$/, 'a semantic version such as 1.0.0'),
    steps: z.array(WorkflowStep).min(1),
  })
  .superRefine((workflow, ctx) => {
    const seen = new Set<string>();
    workflow.steps.forEach((step, index) => {
      if (seen.has(step.id)) ctx.addIssue({ code: 'custom', path: ['steps', index, 'id'], message: `step id "${step.id}" is used twice` });
      seen.add(step.id);
    });
  });
export type WorkflowDefinition = z.infer<typeof WorkflowDefinition>;
