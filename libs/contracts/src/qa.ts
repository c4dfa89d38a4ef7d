import { z } from 'zod';
import { ConversationId, NonBlank, RunId, UserMode } from './common';
import { ReasoningOutcome } from './reasoning';

export const Usage = z.object({
  promptTokens: z.number().int().min(0),
  completionTokens: z.number().int().min(0),
  totalTokens: z.number().int().min(0),
  /**
   * Of `promptTokens`, those the provider served from its prompt cache (billed cheaper). Absent when the
   * endpoint did not say, and in logs recorded before it was read: read as 0.
   */
  cachedPromptTokens: z.number().int().min(0).optional(),
});
export type Usage = z.infer<typeof Usage>;

/** One model call the reviewer made: the run's log keeps its cost and latency, as it does for the run's own calls. */
export const QAModelCall = z.object({
  requestId: NonBlank,
  /**
   * The model the reviewer asked (`STAGECRAFT_MODEL_QA_REVIEW` or `STAGECRAFT_MODEL`): its tokens are priced
   * under it. Absent in older logs, whose reviewer tokens stay unpriced.
   */
  model: z.string().optional(),
  latencyMs: z.number().min(0),
  usage: Usage.optional(),
  finishReason: z.string().nullable(),
  /**
   * Whether the reply was asked for as structured output (0059): `json_schema` sent and accepted,
   * `refused` by the endpoint (asked again without it), `off` not sent (refused earlier). Absent in older
   * logs and for a call that asked for none.
   */
  structured: z.enum(['json_schema', 'refused', 'off']).optional(),
});
export type QAModelCall = z.infer<typeof QAModelCall>;

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
export const QaReviewReply = z.object({ report: QAReport, modelCalls: z.array(QAModelCall) });
export type QaReviewReply = z.infer<typeof QaReviewReply>;

/**
 * The one report a review that could not finish becomes: `concerns`, saying why. QA is advisory, so
 * a missing review never stops a run; it is reported instead.
 */
export const reviewNotCompleted = (why: string): QAReport => ({ verdict: 'concerns', summary: `QA review could not be completed: ${why}`, findings: [] });
