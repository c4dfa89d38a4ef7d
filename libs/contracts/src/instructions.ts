import { z } from 'zod';

/** Seed 000: switch the active system prompt to a specialist's. */
export const DelegateReasoning = z.object({
  kind: z.literal('DelegateReasoning'),
  agentType: z.string().min(1).default('specialist'),
  agentPrompt: z
    .string()
    .refine((s) => s.trim().length > 0, 'Agent prompt cannot be blank')
    .refine((s) => s.length <= 50_000, 'Agent prompt too long (max 50,000 chars)'),
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
