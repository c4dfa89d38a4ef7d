import { z } from 'zod';
import { TEMPLATE_LIMITS } from './templates';

/** Seed 000: switch the active system prompt to a specialist's. */
export const DelegateReasoning = z.object({
  kind: z.literal('DelegateReasoning'),
  agentType: z.string().min(1).default('specialist'),
  agentPrompt: z
    .string()
    // A length check the JSON Schema states too (maxLength), unlike a refine.
    .max(TEMPLATE_LIMITS.agentPromptChars, 'Agent prompt too long (max 50,000 chars)')
    .refine((s) => s.trim().length > 0, 'Agent prompt cannot be blank'),
  markIntermediate: z.boolean().default(true),
});
export const ReturnControl = z.object({
  kind: z.literal('ReturnControl'),
  result: z.string().optional(),
});
export const IntermediateReasoning = z.object({ kind: z.literal('IntermediateReasoning') });

export const Instruction = z.discriminatedUnion('kind', [DelegateReasoning, ReturnControl, IntermediateReasoning]);
export type Instruction = z.infer<typeof Instruction>;
export type DelegateReasoning = z.infer<typeof DelegateReasoning>;
