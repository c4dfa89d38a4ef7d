import { z } from 'zod';
import { ConversationId, NonBlank, RunId, UserMode } from './common';
import { ReasoningOutcome } from './reasoning';

export const QAFinding = z.object({
  severity: z.enum(['info', 'minor', 'major', 'critical']),
  message: NonBlank,
  file: z.string().optional(),
});

/** Advisory only: shown to the user or fed back as guidance, never used to rewrite the answer. */
export const QAReport = z.object({
  verdict: z.enum(['pass', 'concerns']),
  summary: z.string(),
  findings: z.array(QAFinding),
  reasoningOutcome: ReasoningOutcome.optional(),
});
export type QAReport = z.infer<typeof QAReport>;

export const QaReviewRequest = z.object({
  runId: RunId,
  conversationId: ConversationId,
  userMode: UserMode,
  reasoningEnabled: z.boolean(),
  userInput: NonBlank,
  answer: z.string(),
  projectRoot: NonBlank,
  /** What the run's tool calls did, for the reviewer to check the answer against; absent when there were none. */
  toolSummary: z.string().optional(),
  /** The run's latest ReasoningOutcome, rendered. */
  lastStepOutcome: z.string().optional(),
});
export type QaReviewRequest = z.infer<typeof QaReviewRequest>;
export const QaReviewReply = z.object({ report: QAReport });
export type QaReviewReply = z.infer<typeof QaReviewReply>;
