import { StagePolicy, StagecraftError, canonicalJson, reviewNotCompleted, toolErrorText } from '@stagecraft/contracts';
import { formatContextId, nextSequence } from '@stagecraft/contracts';
import { askForApprovalIfDue, awaitedCall, denialText } from './approvals';
import { Batch } from './batch';
import { cancel, completedCall, recordLate } from './cancellation';
import { compactIfDue } from './compaction';
import type { DecideContext, Follow } from './decide-context';
import { Fault, Need, RunInput } from './inputs';
import { runIds } from './ids';
import { interpretAnswer } from './interpret';
import { PendingEvent } from './pending-event';
import { Transition, activeAgent, isRefusal, delegationOf, firstStage, nextActingStep, promptRequest } from './rules';
import { InStage, RunState, Running, inStage, withPrior } from './state';

export type { DecideContext, Follow } from './decide-context';

export type Decision = { events: PendingEvent[] } | { needs: Need };

/** Raised inside a decision that needs something only another service knows; `decide` turns it into a `Need`. */
class Missing {
  constructor(readonly need: Need) {}
}

/**
 * The run's one decider: given what the shell observed and the state folded from the log, the
 * events to append. Pure: the same input, state and knowledge always give the same events.
 * A decision may instead name what it needs (policies, a recovery prompt); the shell fetches it
 * and decides again. An input that does not fit the state throws.
 */
export function decide(input: RunInput, state: RunState, given: DecideContext): Decision {
  // A run keeps the bounds it started with, whoever drives it later.
  const recorded = state.status === 'new' ? (input.type === 'RunRequested' ? input.limits : undefined) : state.start.limits;
  const context = recorded ? { ...given, limits: recorded } : given;
  const batch = new Batch(state);
  if (state.status === 'cancelled' && input.type !== 'RunContinued') {
    recordLate(input, state, batch);
    return { events: batch.events };
  }
  try {
    apply(input, batch, context);
    askForApprovalIfDue(batch);
    compactIfDue(batch, context.knowledge, (need) => {
      throw new Missing(need);
    });
  } catch (error) {
    if (error instanceof Missing) return { needs: error.need };
    // A policy that breaks the user's switches ends the run with the events decided so far.
    if (!(error instanceof StagecraftError) || error.code !== 'INVARIANT_VIOLATION' || batch.state.status !== 'running') throw error;
    fail(batch, { code: error.code, message: error.message });
  }
  return { events: batch.events };
}

function apply(input: RunInput, batch: Batch, context: DecideContext): void {
  switch (input.type) {
    case 'RunRequested': {
      if (batch.state.status !== 'new') throw new StagecraftError('CONFLICT', `run ${input.runId} already exists`);
      const { runId, conversationId, userMode, reasoningEnabled, message, projectRoot, historyThrough, compaction } = input;
      batch.add('RunStarted', {
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
      });
      // The earlier turns are the shell's to load; the first stage's request already carries them.
      if (input.prior) batch.state = withPrior(batch.state, input.prior);
      batch.add('MessageAppended', {
        messageId: runIds.input(runId),
        role: 'user',
        content: message,
        instructions: [],
        intermediate: false,
        kind: 'user_input',
      });
      enter(batch, { stage: firstStage(batch.running.start), iteration: 0 }, input.at, context);
      return;
    }
    case 'RunResumed':
      return resume(batch, input.at, context);
    case 'ModelAnswered': {
      const current = stageOf(batch);
      if (input.request) batch.add('ModelRequested', input.request);
      batch.add('ModelResponded', input.response);
      if (current.stage === 'qa_review')
        throw new StagecraftError('INTERNAL', 'qa_review is answered by the qa service, not by the run model');
      return follow(batch, interpretAnswer(batch, input.response, context), input.at, context);
    }
    case 'ModelCallFailed':
      stageOf(batch);
      if (input.request) batch.add('ModelRequested', input.request);
      return fail(batch, input.fault);
    case 'ToolAnswered': {
      const call = openCall(batch, input.callId);
      batch.add('ToolCallCompleted', completedCall(call.callId, input.result));
      batch.add('MessageAppended', toolResult(batch, call.modelCallId, input.result.output));
      return afterToolResult(batch, input.at, context);
    }
    case 'ToolCallFailed': {
      const call = openCall(batch, input.callId);
      if (!isRefusal(input.fault)) return fail(batch, input.fault);
      const { stage } = batch.inStage.current;
      batch.add('ToolCallRejected', { callId: call.callId, tool: call.tool, stage, code: input.fault.code, reason: input.fault.message });
      const text = toolErrorText({
        code: input.fault.code,
        problem: input.fault.message,
        retry: 'use a tool and arguments this stage allows',
      });
      batch.add('MessageAppended', toolResult(batch, call.modelCallId, text));
      return afterToolResult(batch, input.at, context);
    }
    case 'ReviewReturned':
      awaitingReview(batch);
      batch.add('QAReportIssued', { report: input.report, modelCalls: input.modelCalls });
      return complete(batch);
    case 'ReviewFailed':
      // QA is advisory: without it the run still completes, and says why the review is missing.
      awaitingReview(batch);
      batch.add('QAReportIssued', { report: reviewNotCompleted(input.fault.message) });
      return complete(batch);
    case 'ApprovalAnswered': {
      const call = awaitedCall(batch, input.approvalId);
      if (input.decision === 'approve') {
        batch.add('ApprovalGiven', { approvalId: input.approvalId, ...(input.reason ? { note: input.reason } : {}) });
        return;
      }
      const { stage } = batch.inStage.current;
      batch.add('ApprovalDenied', { approvalId: input.approvalId, reason: input.reason ?? '' });
      batch.add('ToolCallRejected', {
        callId: call.callId,
        tool: call.tool,
        stage,
        code: 'FORBIDDEN_TOOL',
        reason: `denied by the user${input.reason ? `: ${input.reason}` : ''}`,
      });
      batch.add('MessageAppended', toolResult(batch, call.modelCallId, denialText(call, input.reason)));
      return afterToolResult(batch, input.at, context);
    }
    case 'RunStopped':
      if (batch.state.status !== 'running') return;
      return fail(batch, input.fault);
    case 'RunCancelled':
      return cancel(batch, input);
    case 'RunContinued':
      return continueCancelled(batch, input, context);
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
function continueCancelled(batch: Batch, input: Extract<RunInput, { type: 'RunContinued' }>, context: DecideContext): void {
  const { state } = batch;
  if (state.status === 'running') return;
  if (state.status === 'new') throw new StagecraftError('NOT_FOUND', 'no such run');
  if (state.status !== 'cancelled')
    throw new StagecraftError('CONFLICT', `run ${state.start.runId} has ended (${state.status}): there is nothing to continue`);
  if (state.start.agent)
    throw new StagecraftError(
      'CONFLICT',
      `run ${state.start.runId} is an agent of workflow ${state.start.agent.workflowId}: its workflow decides what runs`,
    );
  batch.add('RunContinued', { by: input.by });
  if (!inStage(batch.state)) return;
  const cutOff = cutOffCalls(batch.inStage);
  for (const modelCallId of cutOff) batch.add('MessageAppended', toolResult(batch, modelCallId, CUT_OFF));
  if (cutOff.length > 0) afterToolResult(batch, input.at, context);
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

function follow(batch: Batch, next: Follow, at: string, context: DecideContext): void {
  switch (next.kind) {
    case 'stay':
      return;
    case 'correct':
      return addGuidance(batch, next.promptId, next.reason, context);
    case 'enter':
      if (next.guidance) addGuidance(batch, next.guidance.promptId, next.guidance.reason, context);
      return enter(batch, next.transition, at, context);
    case 'fail':
      return fail(batch, next.fault);
    default: {
      const unreachable: never = next;
      throw new StagecraftError('INTERNAL', `unknown follow-up ${JSON.stringify(unreachable)}`);
    }
  }
}

/** A recovery prompt (seed 002 §10) as a user message in the current stage. */
function addGuidance(batch: Batch, promptId: string, reason: string, context: DecideContext): void {
  const s = batch.inStage;
  const request = promptRequest(s, { ...s.current.policy, prompts: [promptId] }, []);
  const text = context.knowledge.prompt(promptId);
  if (text === undefined) throw new Missing({ kind: 'prompt', promptId, request });
  batch.add('MessageAppended', {
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
function enter(batch: Batch, { stage, iteration, limit }: Transition, at: string, context: DecideContext): void {
  if (limit) {
    const { current } = batch.inStage;
    batch.add('LimitReached', { limit, value: context.limits[limit], stage: current.stage, iteration: current.iteration });
  }
  const s = batch.running;
  const policy = policyFor(s, stage, context);
  const agentType = activeAgent(s.delegations);
  const { sequence } = nextSequence(s.sequences, s.start.runId, agentType);
  const contextId = formatContextId({ workflowRunId: s.start.runId, agentType, sequence, timestamp: at });
  // A stage entered again with the policy it had is recorded without repeating it (docs/decisions/0018).
  const samePolicy = s.current !== null && canonicalJson(s.current.policy) === canonicalJson(policy);
  batch.add('StageEntered', { stage, iteration, ...(samePolicy ? {} : { policy }), contextId });
}

function policyFor(s: Running, stage: StagePolicy['stage'], context: DecideContext): StagePolicy {
  const { userMode, reasoningEnabled } = s.start;
  const delegation = delegationOf(s.delegations);
  const policies = context.knowledge.policies(delegation);
  // A workflow agent's part decides whether it may write at all (docs/decisions/0036).
  const workflowAgentType = s.start.agent?.agentType;
  if (!policies)
    throw new Missing({
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

function fail(batch: Batch, fault: Fault): void {
  const stage = batch.running.current?.stage;
  batch.add('RunFailed', { code: fault.code, reason: fault.message, stage });
}

function complete(batch: Batch): void {
  const s = batch.running;
  const deliveryState = s.deliveryState ?? 'NEEDS_WORK';
  // A run that did not get to `DONE` says which bound ended it, if one did.
  const limit = deliveryState !== 'DONE' && s.limitReached ? { limit: s.limitReached } : {};
  batch.add('RunCompleted', { deliveryState, answer: s.answer ?? '', ...limit });
}

/** Older logs may stop between steps that are now one commit: finish the step they stopped in. */
function resume(batch: Batch, at: string, context: DecideContext): void {
  const s = batch.state;
  if (s.status !== 'running') return;
  if (!inStage(s)) return enter(batch, { stage: firstStage(s.start), iteration: 0 }, at, context);
  if (s.current.step.kind === 'answered') return follow(batch, interpretAnswer(batch, s.current.step.response, context), at, context);
  if (s.current.stage === 'qa_review' && s.qaReport) return complete(batch);
}

function toolResult(batch: Batch, modelCallId: string, content: string) {
  const s = batch.inStage;
  return {
    messageId: runIds.message(s.start.runId, s.messageCount + 1),
    role: 'tool' as const,
    content,
    instructions: [],
    intermediate: false,
    kind: 'tool_result' as const,
    stage: s.current.stage,
    toolCallId: modelCallId,
  };
}

function afterToolResult(batch: Batch, at: string, context: DecideContext): void {
  const s = batch.inStage;
  if (s.current.step.kind === 'tools') return;
  enter(batch, nextActingStep(s.current, s.deliveryChecks, context.limits), at, context);
}

function stageOf(batch: Batch): InStage['current'] {
  const { current } = batch.inStage;
  if (current.step.kind === 'tools') throw new StagecraftError('INTERNAL', 'a model answer arrived while tool calls are open');
  return current;
}

function openCall(batch: Batch, callId: string) {
  const { step } = batch.inStage.current;
  const call = step.kind === 'tools' ? step.open.find((c) => c.callId === callId) : undefined;
  if (!call) throw new StagecraftError('INTERNAL', `no open tool call ${callId}`);
  return call;
}

function awaitingReview(batch: Batch): void {
  const s = batch.inStage;
  if (s.current.stage !== 'qa_review' || s.qaReport) throw new StagecraftError('INTERNAL', 'no review is awaited');
}
