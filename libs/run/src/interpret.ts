import { ReasoningOutcome, ToolCall, ToolName, parseToolArguments, toolErrorText } from '@stagecraft/contracts';
import { RECOVERY_PROMPTS } from '@stagecraft/prompts';
import { deliveryStatement, parseReasoning, stripReasoning } from '@stagecraft/reasoning';
import { RunDecision, expectInStage, expectRunning } from './run-decision';
import type { DecideContext, Follow } from './decide-context';
import { applyInstructions } from './delegation';
import { runIds } from './ids';
import { findInstructionTags } from './instruction-tags';
import { STUCK_REPEATS, repeatedCalls, strictRules, strictVerdict } from './gate';
import {
  afterDeliveryCheck,
  afterSpeakerChange,
  asksUserForInput,
  isActing,
  isThinReasoning,
  nextActingStep,
  toDeliveryGate,
} from './rules';
import { ModelResponse } from './state';

/** Asks again in the same stage for a reply the run can use; once the stage's corrections are spent, the run fails. */
function correction(decision: RunDecision, context: DecideContext, promptId: string, reason: string): Follow {
  const { current } = expectInStage(decision.state);
  if (current.corrections < context.limits.maxCorrectionsPerStage) return { kind: 'correct', promptId, reason };
  return {
    kind: 'fail',
    fault: { code: 'MODEL_FORMAT', message: `${reason}; still wrong after ${current.corrections} correction(s) in ${current.stage}` },
  };
}

/**
 * Reads the model's answer in the current stage: adds what it means to the decision and says what
 * follows. The stage machine's transitions after an answer are all here, named in `rules.ts`.
 */
export function interpretAnswer(decision: RunDecision, response: ModelResponse, context: DecideContext): Follow {
  const { limits } = context;
  const s = expectInStage(decision.state);
  const { stage, policy } = s.current;
  const agentMode = s.start.userMode === 'agent';
  const acting = isActing(stage);
  let visible = stripReasoning(response.content).trim();
  let outcome: ReasoningOutcome | null = null;
  const strict = strictRules(s.start);
  // An empty reply is empty whatever the reasoning switch: recovered as empty, not as a format slip.
  if (strict && response.content.trim() === '' && response.toolCalls.length === 0) return emptyReply(decision, context);

  if (policy.reasoning.required) {
    const format = policy.reasoning.rule === 'macro' ? 'macro' : 'micro';
    const parsed = parseReasoning(response.content, format);
    if (!parsed.ok)
      return correction(
        decision,
        context,
        RECOVERY_PROMPTS.reasoningFormatCorrection,
        `${format} reasoning ${parsed.problem}: ${parsed.detail}`,
      );
    outcome = parsed.outcome;
    visible = parsed.visible.trim();
    // The block is the first in the response just recorded: `ReasoningRecorded` does not copy it (docs/decisions/0018).
    decision.add('ReasoningRecorded', { requestId: response.requestId, format, outcome });
  }

  const calls = response.toolCalls;
  // The delivery gate may answer with its reasoning alone: the Delivery line is the answer there.
  if (visible === '' && calls.length === 0 && !(stage === 'delivery_check' && outcome)) {
    if (outcome) return correction(decision, context, RECOVERY_PROMPTS.reasoningOnlyNoAnswer, 'reasoning without an answer or a tool call');
    return emptyReply(decision, context);
  }
  if (acting && agentMode && calls.length === 0 && asksUserForInput(visible)) {
    return correction(decision, context, RECOVERY_PROMPTS.noUserInputNextStep, 'asked the user for input instead of using its tools');
  }

  const marked = Boolean(s.delegations.at(-1)?.markIntermediate);
  if (marked) decision.add('InstructionIssued', { instruction: { kind: 'IntermediateReasoning' }, accepted: true });
  const assistant = (content: string, toolCalls: ToolCall[]) => {
    const at = expectRunning(decision.state);
    decision.add('MessageAppended', {
      messageId: runIds.message(at.start.runId, at.messageCount + 1),
      role: 'assistant',
      content,
      instructions: marked ? [{ kind: 'IntermediateReasoning' }] : [],
      intermediate: marked || !acting,
      kind: 'assistant',
      stage,
      ...(toolCalls.length ? { toolCalls } : {}),
    });
  };

  const tags = acting && agentMode ? findInstructionTags(visible) : { requested: [], rest: visible };
  if (tags.requested.length > 0) {
    const applied = applyInstructions(s.delegations, tags.requested, limits);
    // Version 1 dropped the calls beside the tags unseen; version 2 refuses each where the model can read it.
    const beside = strict ? calls : [];
    assistant(tags.rest, beside);
    if (beside.length > 0)
      addToolCalls(decision, response, beside, false, 'a delegation instruction in the same reply hands the turn over');
    for (const e of applied.events) decision.add(e);
    const at = expectRunning(decision.state);
    decision.add('MessageAppended', {
      messageId: runIds.message(at.start.runId, at.messageCount + 1),
      role: 'user',
      content: applied.notes.join('\n\n'),
      instructions: [],
      intermediate: true,
      kind: 'delegation',
      stage,
    });
    // A change of speaker is a new stage entry: the policy and context id follow the new delegation chain.
    // Instructions that were all refused close the round as well (as tool calls that were all refused do),
    // so a model that keeps asking for a refused delegation still reaches the loop's bound.
    return { kind: 'enter', transition: afterSpeakerChange(s.current, s.deliveryChecks, limits) };
  }

  // A next step described but not taken: asked once or twice to take it, then the gate judges the reply.
  // Nudges: the reply is usable, so once the stage's corrections are spent it stands as it is.
  const nudge = (promptId: string, reason: string): Follow | null =>
    s.current.corrections < limits.maxCorrectionsPerStage ? { kind: 'correct', promptId, reason } : null;
  const described = acting && agentMode && policy.toolLoop && calls.length === 0 && outcome?.delivery_state === 'NEEDS_WORK';
  const thin = outcome !== null && stage !== 'delivery_check' && calls.length === 0 && isThinReasoning(outcome);
  const nudged = described
    ? nudge(RECOVERY_PROMPTS.forceToolFollowup, 'a next step was described but no tool was called')
    : thin
      ? nudge(RECOVERY_PROMPTS.lowQualityReasoning, 'the reasoning names no next action')
      : null;
  if (nudged) return nudged;

  const stuck = strict && acting && policy.toolLoop ? repeatedCalls(s.history, calls) : 0;
  if (stuck >= STUCK_REPEATS) {
    const what = `the same call (${calls.map((c) => c.name).join(', ')}) with the same arguments, ${stuck} times in a row`;
    if (s.current.corrections === 0) return { kind: 'correct', promptId: RECOVERY_PROMPTS.stuckLoop, reason: `stuck: ${what}` };
    // The loop ends at the gate's verdict, recorded as its cause, and the reviewer still sees what was done.
    decision.add('DeliveryChecked', {
      state: 'NEEDS_WORK',
      iteration: s.deliveryChecks,
      reason: `stuck in a loop: ${what}, after a correction`,
    });
    return { kind: 'enter', transition: { stage: 'qa_review', iteration: 0 } };
  }

  assistant(visible, calls);
  const runsTools = policy.toolLoop && acting;
  if (calls.length > 0) addToolCalls(decision, response, calls, runsTools);

  switch (stage) {
    case 'warmup':
      return { kind: 'enter', transition: { stage: 'act', iteration: 0 } };
    case 'act':
    case 'tool_followup': {
      if (calls.length === 0 || !runsTools) return { kind: 'enter', transition: toDeliveryGate(s.deliveryChecks) };
      // Every call refused at once closes the round here; otherwise the tools' results close it.
      const after = expectInStage(decision.state);
      return after.current.step.kind === 'tools'
        ? { kind: 'stay' }
        : { kind: 'enter', transition: nextActingStep(s.current, s.deliveryChecks, limits) };
    }
    case 'delivery_check': {
      const verdict = strict ? strictVerdict(outcome, response.content, s.answer) : null;
      const delivery = verdict?.state ?? outcome?.delivery_state ?? deliveryStatement(visible) ?? 'NEEDS_WORK';
      const reason = verdict ? verdict.reason : outcome?.plan_delta || undefined;
      decision.add('DeliveryChecked', { state: delivery, iteration: s.deliveryChecks, reason });
      const transition = afterDeliveryCheck(delivery === 'DONE', s.deliveryChecks, limits);
      if (transition.stage !== 'act') return { kind: 'enter', transition };
      return {
        kind: 'enter',
        transition,
        guidance: { promptId: RECOVERY_PROMPTS.enforceDeliveryCompletion, reason: 'the delivery check found work left' },
      };
    }
    case 'qa_review':
      return { kind: 'fail', fault: { code: 'INTERNAL', message: 'qa_review is answered by the qa service' } };
    default: {
      const unreachable: never = stage;
      return unreachable;
    }
  }
}

/** The first empty reply of a stage gets the recovery prompt, a later one the follow-up. */
function emptyReply(decision: RunDecision, context: DecideContext): Follow {
  const again = expectInStage(decision.state).current.corrections > 0;
  return correction(
    decision,
    context,
    again ? RECOVERY_PROMPTS.emptyResponseFollowup : RECOVERY_PROMPTS.emptyResponseRecovery,
    'empty response',
  );
}

/**
 * Requested when this stage runs tools; refused (with a result the model can read) when it does not,
 * or when `refusedFor` says why none of them may run.
 */
function addToolCalls(decision: RunDecision, response: ModelResponse, calls: ToolCall[], runsTools: boolean, refusedFor?: string): void {
  const { stage } = expectInStage(decision.state).current;
  for (const call of calls) {
    const callId = runIds.toolCall(response.requestId, call.id);
    const tool = ToolName.safeParse(call.name);
    const args = parseToolArguments(call.arguments);
    if (runsTools && tool.success && args) {
      decision.add('ToolCallRequested', { callId, tool: tool.data, arguments: args, stage, modelCallId: call.id });
      continue;
    }
    const problem = refusedFor
      ? refusedFor
      : !runsTools
        ? `no tools are available in the ${stage} stage`
        : !tool.success
          ? `unknown tool "${call.name}"`
          : `the arguments of ${call.name} are not a JSON object`;
    decision.add('ToolCallRejected', {
      callId,
      tool: call.name,
      stage,
      code: runsTools && !args ? 'VALIDATION' : 'FORBIDDEN_TOOL',
      reason: problem,
    });
    const retry = refusedFor
      ? 'make the call again after control returns, if it is still needed'
      : runsTools
        ? 'call one of the offered tools with a JSON object of arguments'
        : 'answer without tools';
    const at = expectRunning(decision.state);
    decision.add('MessageAppended', {
      messageId: runIds.message(at.start.runId, at.messageCount + 1),
      role: 'tool',
      content: toolErrorText({ code: 'REFUSED', problem, retry }),
      instructions: [],
      intermediate: false,
      kind: 'tool_result',
      stage,
      toolCallId: call.id,
    });
  }
}
