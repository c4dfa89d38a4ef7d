/**
 * Prompts outside any stage's composition: the conversation adds them when a reply goes wrong
 * (seed 002 §10). They keep the stage's mode and reasoning rule; none of them changes either.
 */
export const RECOVERY_PROMPTS = Object.freeze({
  emptyResponseRecovery: 'agent/empty_response_recovery',
  emptyResponseFollowup: 'corrections/empty_response_followup',
  forceToolFollowup: 'corrections/force_tool_followup',
  noUserInputNextStep: 'corrections/no_user_input_next_step',
  reasoningFormatCorrection: 'delivery/reasoning_format_correction',
  lowQualityReasoning: 'delivery/low_quality_reasoning',
  reasoningOnlyNoAnswer: 'delivery/reasoning_only_no_answer',
  enforceDeliveryCompletion: 'delivery/enforce_delivery_completion',
  stuckLoop: 'corrections/stuck_loop',
} as const);
export type RecoveryPromptId = (typeof RECOVERY_PROMPTS)[keyof typeof RECOVERY_PROMPTS];

/** Asks the model for a structured summary of older messages, when history is compacted with the `model` method. */
export const SUMMARIZE_PROMPT = 'compaction/summarize';
