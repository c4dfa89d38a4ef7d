import { z } from 'zod';
import { DeliveryState } from './common';

/** The compact result of one reasoning block: the only part of reasoning that later requests see. */
export const ReasoningOutcome = z.object({
  plan_delta: z.string(),
  next_action: z.string(),
  known_risks: z.string(),
  delivery_state: DeliveryState,
  notes: z.array(z.string()).default([]),
});
export type ReasoningOutcome = z.infer<typeof ReasoningOutcome>;
