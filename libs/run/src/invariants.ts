import { ChatMessage, EventData, StagePolicy, ToolSpec } from '@stagecraft/contracts';
import { isReasoningPrompt } from '@stagecraft/policy';
import { containsReasoning } from '@stagecraft/reasoning';

export interface ModelRequestDraft {
  policy: StagePolicy;
  promptIds: string[];
  messages: ChatMessage[];
  tools: ToolSpec[];
}

/**
 * Seed 002 §9.2, checked before every model request. Returns what is wrong, in words; an empty
 * list means the request may go out.
 */
export function requestViolations(start: EventData<'RunStarted'>, draft: ModelRequestDraft): string[] {
  const problems: string[] = [];
  const { policy } = draft;
  if (policy.userMode !== start.userMode) problems.push(`mode ${policy.userMode} differs from the user's ${start.userMode}`);
  if (policy.reasoningEnabled !== start.reasoningEnabled) problems.push(`reasoning ${policy.reasoningEnabled} differs from the user's ${start.reasoningEnabled}`);
  const offered = draft.tools.map((t) => t.name).sort();
  const allowed = (policy.toolLoop ? [...policy.tools] : []).sort();
  if (offered.join(',') !== allowed.join(',')) problems.push(`tools [${offered.join(', ')}] differ from the ${policy.stage} policy [${allowed.join(', ')}]`);
  if (policy.reasoning.required && !draft.promptIds.some(isReasoningPrompt)) problems.push(`the ${policy.stage} stage requires reasoning but the prompt carries no reasoning instruction`);
  if (!policy.reasoning.required && draft.promptIds.some(isReasoningPrompt)) problems.push('the prompt asks for reasoning the user did not enable');
  // Reasoning is what the model wrote: only its own earlier messages could carry it back in.
  // (Corrections describe the format, and a file the model read may mention the tag: neither is reasoning.)
  const polluted = draft.messages.findIndex((m) => m.role === 'assistant' && containsReasoning(m.content));
  if (polluted >= 0) problems.push(`message ${polluted} carries full <ide_reasoning> from an earlier step`);
  return problems;
}
