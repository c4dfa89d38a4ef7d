import { Decider, needs } from '@stagecraft/decider';
import { StagePolicy, StagecraftError, canonicalJson, reviewNotCompleted, toolErrorText } from '@stagecraft/contracts';
import { formatContextId, nextSequence } from '@stagecraft/contracts';
import { askForApprovalIfDue, awaitedCall, denialText } from './approvals';
import { RunDecision, expectInStage, expectRunning } from './run-decision';
import { cancel, completedCall, recordLate } from './cancellation';
import { compactIfDue } from './compaction';
import type { DecideContext, Follow } from './decide-context';
import { Fault, Need, RunInput } from './inputs';
import { runIds } from './ids';
import { interpretAnswer } from './interpret';
import { RULES_VERSION, endCause, strictRules } from './gate';
import { PendingEvent } from './pending-event';
import { Transition, activeAgent, isRefusal, delegationOf, firstStage, nextActingStep, promptRequest } from './rules';
import { InStage, RunState, Running, inStage, initialRunState, withPrior } from './state';
import { evolveRun } from './evolve';
import { toolResultView } from './tool-output-view';

export type { DecideContext, Follow } from './decide-context';

/**
 * The run's one decider: given what the shell observed and the state folded from the log, the
 * events to append. Pure: the same input, state and knowledge always give the same events.
 * A decision may instead need a fact only another service knows (policies, a recovery prompt, a
 * summary): it throws the kit's `Needed` (`needs`), the shell fetches it and decides again
 * (`outcomeOf`). An input that does not fit the state throws.
 */
export const runDecider: Decider<RunState, RunInput, PendingEvent, DecideContext> = {
  initialState: initialRunState,
  evolve: evolveRun,
  decide,
};

function decide(input: RunInput, state: RunState, given: DecideContext): readonly PendingEvent[] {
  // A run keeps the bounds it started with, whoever drives it later (a bound older logs lack is the driver's).
  const recorded = state.status === 'new' ? (input.type === 'RunRequested' ? input.limits : undefined) : state.start.limits;
  const context = recorded ? { ...given, limits: { ...given.limits, ...recorded } } : given;
  const decision = new RunDecision(state);
  if (state.status === 'cancelled' && input.type !== 'RunContinued') {
    recordLate(input, state, decision);
    return decision.events;
  }
  try {
    apply(input, decision, context);
    askForApprovalIfDue(decision);
    compactIfDue(decision, context.knowledge);
  } catch (error) {
    // A policy that breaks the user's switches ends the run with the events decided so far; a
    // `Needed` (no StagecraftError) goes to the shell with nothing decided.
    if (!(error instanceof StagecraftError) || error.code !== 'INVARIANT_VIOLATION' || decision.state.status !== 'running') throw error;
    fail(decision, { code: error.code, message: error.message });
  }
  return decision.events;
}

function apply(input: RunInput, decision: RunDecision, context: DecideContext): void {
  switch (input.type) {
    case 'RunRequested': {
      if (decision.state.status !== 'new') throw new StagecraftError('CONFLICT', `run ${input.runId} already exists`);
      const { runId, conversationId, userMode, reasoningEnabled, message, projectRoot, historyThrough, compaction } = input;
      decision.add('RunStarted', {
        runId,
        conversationId,
        userMode,
        reasoningEnabled,
        userInput: message,
        projectRoot,
        historyThrough,
        compaction,
        limits: input.limits,
        ...(input.approve ? { approve: input.approve } : {}),
        ...(input.agent ? { agent: input.agent } : {}),
        ...(input.editor ? { editor: input.editor } : {}),
        ...((input.rules ?? RULES_VERSION) === 2 ? { rules: RULES_VERSION } : {}),
      });
      // The earlier turns are the shell's to load; the first stage's request already carries them.
      if (input.prior) decision.state = withPrior(decision.state, input.prior);
      decision.add('MessageAppended', {
        messageId: runIds.input(runId),
        role: 'user',
        content: message,
        instructions: [],
        intermediate: false,
        kind: 'user_input',
      });
      enter(decision, { stage: firstStage(expectRunning(decision.state).start), iteration: 0 }, input.at, context);
      return;
    }
    case 'RunResumed':
      return resume(decision, input.at, context);
    case 'ModelAnswered': {
      const current = stageOf(decision);
      if (input.request) decision.add('ModelRequested', input.request);
      decision.add('ModelResponded', input.response);
      if (current.stage === 'qa_review')
        throw new StagecraftError('INTERNAL', 'qa_review is answered by the qa service, not by the run model');
      return follow(decision, interpretAnswer(decision, input.response, context), input.at, context);
    }
    case 'ModelCallFailed':
      stageOf(decision);
      if (input.request) decision.add('ModelRequested', input.request);
      return fail(decision, input.fault);
    case 'ToolAnswered': {
      const call = openCall(decision, input.callId);
      const shown = toolResultView(expectInStage(decision.state), call, input.result);
      decision.add('ToolCallCompleted', completedCall(call.callId, input.result));
      decision.add('MessageAppended', toolResult(decision, call.modelCallId, shown.content, shown.outputOf));
      return afterToolResult(decision, input.at, context);
    }
    case 'ToolCallFailed': {
      const call = openCall(decision, input.callId);
      if (!isRefusal(input.fault)) return fail(decision, input.fault);
      const { stage } = expectInStage(decision.state).current;
      decision.add('ToolCallRejected', {
        callId: call.callId,
        tool: call.tool,
        stage,
        code: input.fault.code,
        reason: input.fault.message,
      });
      const text = toolErrorText({
        code: input.fault.code,
        problem: input.fault.message,
        retry: 'use a tool and arguments this stage allows',
      });
      decision.add('MessageAppended', toolResult(decision, call.modelCallId, text));
      return afterToolResult(decision, input.at, context);
    }
    case 'ReviewReturned':
      awaitingReview(decision);
      decision.add('QAReportIssued', { report: input.report, modelCalls: input.modelCalls });
      return complete(decision);
    case 'ReviewFailed':
      // QA is advisory: without it the run still completes, and says why the review is missing.
      awaitingReview(decision);
      decision.add('QAReportIssued', { report: reviewNotCompleted(input.fault.message) });
      return complete(decision);
    case 'ApprovalAnswered': {
      const call = awaitedCall(decision, input.approvalId);
      if (input.decision === 'approve') {
        decision.add('ApprovalGiven', { approvalId: input.approvalId, ...(input.reason ? { note: input.reason } : {}) });
        return;
      }
      const { stage } = expectInStage(decision.state).current;
      decision.add('ApprovalDenied', { approvalId: input.approvalId, reason: input.reason ?? '' });
      decision.add('ToolCallRejected', {
        callId: call.callId,
        tool: call.tool,
        stage,
        code: 'FORBIDDEN_TOOL',
        reason: `denied by the user${input.reason ? `: ${input.reason}` : ''}`,
      });
      decision.add('MessageAppended', toolResult(decision, call.modelCallId, denialText(call, input.reason)));
      return afterToolResult(decision, input.at, context);
    }
    case 'RunStopped':
      if (decision.state.status !== 'running') return;
      return fail(decision, input.fault);
    case 'RunCancelled':
      return cancel(decision, input);
    case 'RunContinued':
      return continueCancelled(decision, input, context);
    default: {
      const unreachable: never = input;
      throw new StagecraftError('INTERNAL', `unknown input ${JSON.stringify(unreachable)}`);
    }
  }
}

/**
 * Takes a cancelled run up again where it was cancelled. The model is told of each tool call the
 * cancellation cut off (its record stays on the log; it is never run again), and the stage goes on.
 * A workflow's agent run is its workflow's to continue.
 */
function continueCancelled(decision: RunDecision, input: Extract<RunInput, { type: 'RunContinued' }>, context: DecideContext): void {
  const { state } = decision;
  if (state.status === 'running') return;
  if (state.status === 'new') throw new StagecraftError('NOT_FOUND', 'no such run');
  if (state.status !== 'cancelled')
    throw new StagecraftError('CONFLICT', `run ${state.start.runId} has ended (${state.status}): there is nothing to continue`);
  if (state.start.agent)
    throw new StagecraftError(
      'CONFLICT',
      `run ${state.start.runId} is an agent of workflow ${state.start.agent.workflowId}: its workflow decides what runs`,
    );
  decision.add('RunContinued', { by: input.by });
  if (!inStage(decision.state)) return;
  const cutOff = cutOffCalls(expectInStage(decision.state));
  for (const modelCallId of cutOff) decision.add('MessageAppended', toolResult(decision, modelCallId, CUT_OFF));
  if (cutOff.length > 0) afterToolResult(decision, input.at, context);
}

const CUT_OFF = toolErrorText({
  code: 'INTERRUPTED',
  problem: 'the run was cancelled while this call was made; it is not run again',
  retry: 'check what the call would have changed before you do it again',
});

/** The model's tool calls of its last answer that have no result message and are no longer open: closed by a cancellation. */
function cutOffCalls(s: InStage): string[] {
  const last = s.history.findLastIndex((m) => m.message.role === 'assistant' && (m.message.toolCalls?.length ?? 0) > 0);
  if (last < 0) return [];
  const answered = new Set(s.history.slice(last + 1).flatMap((m) => (m.message.toolCallId ? [m.message.toolCallId] : [])));
  const open = new Set(s.current.step.kind === 'tools' ? s.current.step.open.map((c) => c.modelCallId) : []);
  return (s.history[last].message.toolCalls ?? []).map((c) => c.id).filter((id) => !answered.has(id) && !open.has(id));
}

function follow(decision: RunDecision, next: Follow, at: string, context: DecideContext): void {
  switch (next.kind) {
    case 'stay':
      return;
    case 'correct':
      return addGuidance(decision, next.promptId, next.reason, context);
    case 'enter':
      if (next.guidance) addGuidance(decision, next.guidance.promptId, next.guidance.reason, context);
      return enter(decision, next.transition, at, context);
    case 'fail':
      return fail(decision, next.fault);
    default: {
      const unreachable: never = next;
      throw new StagecraftError('INTERNAL', `unknown follow-up ${JSON.stringify(unreachable)}`);
    }
  }
}

/** A recovery prompt (seed 002 §10) as a user message in the current stage. */
function addGuidance(decision: RunDecision, promptId: string, reason: string, context: DecideContext): void {
  const s = expectInStage(decision.state);
  const request = promptRequest(s, { ...s.current.policy, prompts: [promptId] }, []);
  const text = context.knowledge.prompt(promptId);
  if (text === undefined) needs<Need>({ kind: 'prompt', promptId, request });
  decision.add('MessageAppended', {
    messageId: runIds.message(s.start.runId, s.messageCount + 1),
    role: 'user',
    content: `${text.trim()}\n\n(${reason})`,
    instructions: [],
    intermediate: true,
    kind: 'correction',
    stage: s.current.stage,
  });
}

/** The one place a stage is entered: its policy (checked against the user's switches) and its context id. */
function enter(decision: RunDecision, { stage, iteration, limit }: Transition, at: string, context: DecideContext): void {
  if (limit) {
    const { current } = expectInStage(decision.state);
    decision.add('LimitReached', { limit, value: context.limits[limit], stage: current.stage, iteration: current.iteration });
  }
  const s = expectRunning(decision.state);
  const policy = policyFor(s, stage, context);
  const agentType = activeAgent(s.delegations);
  const { sequence } = nextSequence(s.sequences, s.start.runId, agentType);
  // A workflow's agent is known by the context id its dispatch gave it (seed 001), in its own events too;
  // a log of rules version 1 keeps the run's own scheme, so it is decided again as recorded (docs/decisions/0055).
  const agentContextId = strictRules(s.start) ? s.start.agent?.contextId : undefined;
  const contextId = agentContextId ?? formatContextId({ workflowRunId: s.start.runId, agentType, sequence, timestamp: at });
  // A stage entered again with the policy it had is recorded without repeating it (docs/decisions/0018).
  const samePolicy = s.current !== null && canonicalJson(s.current.policy) === canonicalJson(policy);
  decision.add('StageEntered', { stage, iteration, ...(samePolicy ? {} : { policy }), contextId });
}

function policyFor(s: Running, stage: StagePolicy['stage'], context: DecideContext): StagePolicy {
  const { userMode, reasoningEnabled } = s.start;
  const delegation = delegationOf(s.delegations);
  const policies = context.knowledge.policies(delegation);
  // A workflow agent's part decides whether it may write at all (docs/decisions/0036).
  const workflowAgentType = s.start.agent?.agentType;
  if (!policies)
    needs<Need>({
      kind: 'policies',
      request: { userMode, reasoningEnabled, delegation, ...(workflowAgentType ? { workflowAgentType } : {}) },
    });
  const policy = policies.find((p) => p.stage === stage);
  // The user's switches are theirs alone: a policy that changes them stops the run.
  if (
    !policy ||
    policy.userMode !== userMode ||
    policy.reasoningEnabled !== reasoningEnabled ||
    policy.delegation.chain.join('/') !== delegation.chain.join('/')
  ) {
    const got = policy
      ? `mode ${policy.userMode}, reasoning ${policy.reasoningEnabled}, chain [${policy.delegation.chain.join(', ')}]`
      : 'no policy';
    throw new StagecraftError('INVARIANT_VIOLATION', `policy for ${stage} does not keep the user's switches (${got})`);
  }
  return policy;
}

function fail(decision: RunDecision, fault: Fault): void {
  const stage = expectRunning(decision.state).current?.stage;
  decision.add('RunFailed', { code: fault.code, reason: fault.message, stage });
}

/** Ends the run: `DONE` as the gate said it, or short of it, with the bound that ran out and (rules version 2) the cause. */
function complete(decision: RunDecision): void {
  const s = expectRunning(decision.state);
  const answer = s.answer ?? '';
  const strict = strictRules(s.start);
  // Under the strict gate an empty answer is never delivered, whatever was recorded before it.
  const deliveryState = strict && answer.trim() === '' ? 'NEEDS_WORK' : (s.deliveryState ?? 'NEEDS_WORK');
  // A run that did not get to `DONE` says which bound ended it, if one did.
  const limit = deliveryState !== 'DONE' && s.limitReached ? { limit: s.limitReached } : {};
  const why = deliveryState !== 'DONE' && strict ? { cause: endCause(s, s.qaReport?.findings.length ?? 0) } : {};
  decision.add('RunCompleted', { deliveryState, answer, ...limit, ...why });
}

/** Older logs may stop between steps that are now one commit: finish the step they stopped in. */
function resume(decision: RunDecision, at: string, context: DecideContext): void {
  const s = decision.state;
  if (s.status !== 'running') return;
  if (!inStage(s)) return enter(decision, { stage: firstStage(s.start), iteration: 0 }, at, context);
  if (s.current.step.kind === 'answered') return follow(decision, interpretAnswer(decision, s.current.step.response, context), at, context);
  if (s.current.stage === 'qa_review' && s.qaReport) return complete(decision);
}

function toolResult(decision: RunDecision, modelCallId: string, content: string, outputOf?: string) {
  const s = expectInStage(decision.state);
  return {
    messageId: runIds.message(s.start.runId, s.messageCount + 1),
    role: 'tool' as const,
    content,
    instructions: [],
    intermediate: false,
    kind: 'tool_result' as const,
    stage: s.current.stage,
    toolCallId: modelCallId,
    ...(outputOf ? { outputOf } : {}),
  };
}

function afterToolResult(decision: RunDecision, at: string, context: DecideContext): void {
  const s = expectInStage(decision.state);
  if (s.current.step.kind === 'tools') return;
  enter(decision, nextActingStep(s.current, s.deliveryChecks, context.limits), at, context);
}

function stageOf(decision: RunDecision): InStage['current'] {
  const { current } = expectInStage(decision.state);
  if (current.step.kind === 'tools') throw new StagecraftError('INTERNAL', 'a model answer arrived while tool calls are open');
  return current;
}

function openCall(decision: RunDecision, callId: string) {
  const { step } = expectInStage(decision.state).current;
  const call = step.kind === 'tools' ? step.open.find((c) => c.callId === callId) : undefined;
  if (!call) throw new StagecraftError('INTERNAL', `no open tool call ${callId}`);
  return call;
}

function awaitingReview(decision: RunDecision): void {
  const s = expectInStage(decision.state);
  if (s.current.stage !== 'qa_review' || s.qaReport) throw new StagecraftError('INTERNAL', 'no review is awaited');
}
