import { DeliveryState, ReasoningOutcome, Stage, ToolCall, ToolName } from '@stagecraft/contracts';
import { RECOVERY_PROMPTS } from '@stagecraft/prompts';
import { parseReasoning, stripReasoning } from '@stagecraft/reasoning';
import { applyInstructions } from './delegation';
import { findInstructionTags } from './instruction-tags';
import { RunLimits } from './limits';
import { PendingEvent, pending } from './pending-event';
import { RunState } from './run-state';

export interface Interpretation {
  events: PendingEvent[];
  /** Append a correction prompt and ask again in the same stage (seed 002 §10). */
  correction?: { promptId: string; reason: string };
  transition?: { stage: Stage; iteration: number };
  failure?: { code: 'MODEL_FORMAT' | 'LIMIT_EXCEEDED'; reason: string };
}

const ASKS_USER = /\b(please|could you|can you|would you)\s+(provide|share|paste|upload|send|attach|give me)\b|\b(paste|share|upload|send)\s+(me\s+)?(the|your)\s+(file|files|diff|code|contents|logs?|output)\b/i;

export const asksUserForInput = (text: string): boolean => ASKS_USER.test(text);

/** Safe for stream names and subjects: the model chooses tool call ids, so they are cleaned first. */
export const toolCallIdFor = (requestId: string, modelCallId: string): string =>
  `${requestId}.${modelCallId.replace(/[^A-Za-z0-9_:-]/g, '_').slice(0, 48) || 'call'}`;

function parseArguments(raw: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(raw || '{}');
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function deliveryFrom(outcome: ReasoningOutcome | null, visible: string): DeliveryState {
  if (outcome) return outcome.delivery_state;
  if (/\bNEEDS_WORK\b/.test(visible)) return 'NEEDS_WORK';
  return /\bDONE\b/.test(visible) ? 'DONE' : 'NEEDS_WORK';
}

function correct(state: RunState, limits: RunLimits, events: PendingEvent[], promptId: string, reason: string): Interpretation {
  if (state.corrections >= limits.maxCorrectionsPerStage) {
    return { events, failure: { code: 'MODEL_FORMAT', reason: `${reason}; still wrong after ${state.corrections} correction(s) in ${state.stage}` } };
  }
  return { events, correction: { promptId, reason } };
}

/**
 * Turns the model's latest response into events and the run's next move. Pure: the same state
 * gives the same interpretation, which is what lets a restarted run continue where it stopped.
 */
export function interpretResponse(state: RunState, limits: RunLimits): Interpretation {
  const response = state.unprocessed;
  const policy = state.policy;
  const start = state.start;
  if (!response || !policy || !start || !state.stage) throw new Error('interpretResponse needs a started run with a response to read');
  const stage = state.stage;
  const events: PendingEvent[] = [];
  let visible = stripReasoning(response.content).trim();
  let outcome: ReasoningOutcome | null = null;

  if (policy.reasoning.required) {
    const format = policy.reasoning.rule === 'macro' ? 'macro' : 'micro';
    const parsed = parseReasoning(response.content, format);
    if (!parsed.ok) return correct(state, limits, events, RECOVERY_PROMPTS.reasoningFormatCorrection, `${format} reasoning ${parsed.problem}: ${parsed.detail}`);
    outcome = parsed.outcome;
    visible = parsed.visible.trim();
    events.push(pending('ReasoningRecorded', { requestId: response.requestId, format, text: parsed.block, outcome }));
  }

  const calls = response.toolCalls;
  // The delivery gate may answer with its reasoning alone: the Delivery line is the answer there.
  if (visible === '' && calls.length === 0 && !(stage === 'delivery_check' && outcome)) {
    const promptId = outcome ? RECOVERY_PROMPTS.reasoningOnlyNoAnswer : RECOVERY_PROMPTS.emptyResponseRecovery;
    return correct(state, limits, events, promptId, outcome ? 'reasoning without an answer or a tool call' : 'empty response');
  }
  const acting = stage === 'act' || stage === 'tool_followup';
  if (acting && start.userMode === 'agent' && calls.length === 0 && asksUserForInput(visible)) {
    return correct(state, limits, events, RECOVERY_PROMPTS.noUserInputNextStep, 'asked the user for input instead of using its tools');
  }

  let n = state.messageCount;
  const messageId = () => `${start.runId}.msg${++n}`;
  const specialist = state.delegations.at(-1);
  const marked = Boolean(specialist?.markIntermediate);
  if (marked) events.push(pending('InstructionIssued', { instruction: { kind: 'IntermediateReasoning' }, accepted: true }));
  const assistant = (content: string, toolCalls: ToolCall[]) =>
    pending('MessageAppended', {
      messageId: messageId(),
      role: 'assistant',
      content,
      instructions: marked ? [{ kind: 'IntermediateReasoning' }] : [],
      intermediate: marked || !acting,
      kind: 'assistant',
      stage,
      ...(toolCalls.length ? { toolCalls } : {}),
    });

  const tags = acting && start.userMode === 'agent' ? findInstructionTags(visible) : { requested: [], rest: visible };
  if (tags.requested.length > 0) {
    const applied = applyInstructions(state.delegations, tags.requested, limits);
    events.push(assistant(tags.rest, []), ...applied.events);
    events.push(pending('MessageAppended', { messageId: messageId(), role: 'user', content: applied.notes.join('\n\n'), instructions: [], intermediate: true, kind: 'delegation', stage }));
    // A change of speaker is a new stage entry: the policy and context id follow the new delegation chain.
    const changed = applied.events.some((e) => e.type === 'InstructionIssued' && e.data.accepted);
    return changed ? { events, transition: { stage, iteration: state.iteration + 1 } } : { events };
  }

  events.push(assistant(visible, calls));

  if (calls.length > 0) events.push(...toolCallEvents(state, calls, policy.toolLoop && acting, messageId));

  switch (stage) {
    case 'warmup':
      return { events, transition: { stage: 'act', iteration: 0 } };
    case 'act':
    case 'tool_followup':
      if (calls.length > 0 && policy.toolLoop) return { events };
      return { events, transition: { stage: 'delivery_check', iteration: state.deliveryChecks } };
    case 'delivery_check': {
      const delivery = deliveryFrom(outcome, visible);
      events.push(pending('DeliveryChecked', { state: delivery, iteration: state.deliveryChecks, reason: outcome?.plan_delta || undefined }));
      const lastCheck = state.deliveryChecks + 1 >= limits.maxDeliveryChecks;
      if (delivery === 'DONE' || lastCheck) return { events, transition: { stage: 'qa_review', iteration: 0 } };
      return { events, transition: { stage: 'act', iteration: state.deliveryChecks + 1 } };
    }
    case 'qa_review':
      throw new Error('qa_review is answered by the qa service, not interpreted here');
    default: {
      const unreachable: never = stage;
      return unreachable;
    }
  }
}

/** Requested when this stage runs tools; refused (with a result the model can read) when it does not. */
function toolCallEvents(state: RunState, calls: ToolCall[], runsTools: boolean, messageId: () => string): PendingEvent[] {
  const response = state.unprocessed!;
  const stage = state.stage!;
  const events: PendingEvent[] = [];
  for (const call of calls) {
    const callId = toolCallIdFor(response.requestId, call.id);
    const tool = ToolName.safeParse(call.name);
    const args = parseArguments(call.arguments);
    let refusal: string | null = null;
    if (!runsTools) refusal = `no tools are available in the ${stage} stage`;
    else if (!tool.success) refusal = `unknown tool "${call.name}"`;
    else if (!args) refusal = `the arguments of ${call.name} are not a JSON object`;
    if (refusal === null && tool.success && args) {
      events.push(pending('ToolCallRequested', { callId, tool: tool.data, arguments: args, stage, modelCallId: call.id }));
      continue;
    }
    events.push(pending('ToolCallRejected', { callId, tool: call.name, stage, code: runsTools && !args ? 'VALIDATION' : 'FORBIDDEN_TOOL', reason: refusal ?? '' }));
    events.push(pending('MessageAppended', { messageId: messageId(), role: 'tool', content: `tool_error: REFUSED\nproblem: ${refusal}\nretry: ${runsTools ? 'call one of the offered tools with a JSON object of arguments' : 'answer without tools'}`, instructions: [], intermediate: false, kind: 'tool_result', stage, toolCallId: call.id }));
  }
  return events;
}
