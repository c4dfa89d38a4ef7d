import { ChatMessage, PromptAssembleReply } from '@stagecraft/contracts';
import { isReasoningPrompt } from '@stagecraft/policy';
import { containsReasoning } from '@stagecraft/reasoning';
import { ModelCallPlan } from './next-step';

/**
 * Seed 002 §9.2, checked on every model request once its system prompt is assembled. The policy's
 * switches were checked when the stage was entered, and the tools come from the same policy; what
 * is left to check is what other services and earlier answers put into the prompt. An empty list
 * means the request may go out.
 */
export function requestViolations(plan: ModelCallPlan, promptIds: readonly string[], messages: readonly ChatMessage[]): string[] {
  const problems: string[] = [];
  const { policy } = plan;
  if (policy.reasoning.required && !promptIds.some(isReasoningPrompt))
    problems.push(`the ${policy.stage} stage requires reasoning but the prompt carries no reasoning instruction`);
  if (!policy.reasoning.required && promptIds.some(isReasoningPrompt))
    problems.push('the prompt asks for reasoning the user did not enable');
  // Reasoning is what the model wrote: only its own earlier messages could carry it back in.
  // (Corrections describe the format, and a file the model read may mention the tag: neither is reasoning.)
  const polluted = messages.findIndex((m) => m.role === 'assistant' && containsReasoning(m.content));
  if (polluted >= 0) problems.push(`message ${polluted} carries full <ide_reasoning> from an earlier step`);
  return problems;
}

/** How the stage's part of the prompt is sent: a system message, or, for endpoints that accept one only first, a user message. */
export type StageMessageRole = 'system' | 'user';

/**
 * The messages a model call sends: the system prompt, the conversation, then the stage's part of the
 * prompt when it was assembled apart (docs/decisions/0052). Everything before the last message is what
 * the run's previous request sent, or that plus what happened since: a provider's prompt cache reuses it.
 */
export const modelMessages = (
  plan: ModelCallPlan,
  assembled: Pick<PromptAssembleReply, 'system' | 'stage'>,
  stageRole: StageMessageRole = 'system',
): ChatMessage[] => [{ role: 'system', content: assembled.system }, ...plan.conversation, ...stageMessage(assembled.stage, stageRole)];

/** The tag a stage's part sent as a user message is wrapped in, so the model (and a reader) can tell it from the user's words. */
export const STAGE_INSTRUCTIONS_TAG = 'stage_instructions';

function stageMessage(stage: string | undefined, role: StageMessageRole): ChatMessage[] {
  if (!stage) return [];
  if (role === 'system') return [{ role, content: stage }];
  return [{ role, content: `<${STAGE_INSTRUCTIONS_TAG}>\n${stage}</${STAGE_INSTRUCTIONS_TAG}>` }];
}
