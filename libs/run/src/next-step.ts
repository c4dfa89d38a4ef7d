import { ChatMessage, PromptAssembleRequest, QaReviewRequest, StagePolicy, ToolExecuteRequest } from '@stagecraft/contracts';
import { requestConversation } from './compaction';
import { runIds, toolCallRequester } from './ids';
import { activeInstructions, delegationOf, promptRequest, promptVariables } from './rules';
import { AwaitedApproval, InStage, RunState, inStage } from './state';

export interface ModelCallPlan {
  requestId: string;
  /** False when the request is stored already (a retry after a restart): only its answer is new. */
  record: boolean;
  policy: StagePolicy;
  /** The system prompt to assemble first. */
  assemble: PromptAssembleRequest;
  /** Everything after the system prompt: the summary, if any, then the earlier turns and this run's messages after it. */
  conversation: readonly ChatMessage[];
  /**
   * The tools to offer: the same in every stage of the run (`policy.offered`), so that requests share
   * their prefix (docs/decisions/0052). Older logs' policies have none: the stage's, where it runs a tool loop.
   */
  toolNames: StagePolicy['tools'];
  /** `none` where the stage may call no tool but the run's tools are offered: the model is asked not to call them. */
  toolChoice?: 'none';
}

/** The one piece of I/O the run waits for next; the shell turns its outcome into an input. */
export type RunStep =
  | { kind: 'call_model'; plan: ModelCallPlan }
  | { kind: 'run_tool'; request: ToolExecuteRequest }
  | { kind: 'review'; request: QaReviewRequest }
  /** A tool call waits for a person: nothing is done until `ApprovalAnswered` arrives. */
  | { kind: 'await_approval'; approval: AwaitedApproval }
  /** A log written by an older version stopped between steps: feed `RunResumed`. */
  | { kind: 'resume' }
  | { kind: 'finished' };

export function nextStep(state: RunState): RunStep {
  if (state.status !== 'running') return { kind: 'finished' };
  if (!inStage(state)) return { kind: 'resume' };
  const { current } = state;
  switch (current.step.kind) {
    case 'answered':
      return { kind: 'resume' };
    case 'tools':
      if (state.pendingApproval) return { kind: 'await_approval', approval: state.pendingApproval };
      return { kind: 'run_tool', request: toolRequest(state, current.step.open[0]) };
    case 'ask':
    case 'asked':
      if (current.stage !== 'qa_review') return { kind: 'call_model', plan: modelCallPlan(state) };
      return state.qaReport ? { kind: 'resume' } : { kind: 'review', request: reviewRequest(state) };
    default: {
      const unreachable: never = current.step;
      return unreachable;
    }
  }
}

function modelCallPlan(s: InStage): ModelCallPlan {
  const { policy, step } = s.current;
  const asked = step.kind === 'asked' ? step.requestId : null;
  return {
    requestId: asked ?? runIds.modelRequest(s.start.runId, s.modelRequests + 1),
    record: asked === null,
    policy,
    assemble: promptRequest(s, policy, activeInstructions(s.delegations), 'split'),
    conversation: requestConversation(s),
    ...offeredTools(policy),
  };
}

/** What a request of this stage offers, and whether the model may call it (the tool service still refuses what the stage forbids). */
export function offeredTools(policy: StagePolicy): Pick<ModelCallPlan, 'toolNames' | 'toolChoice'> {
  const toolNames = policy.offered ?? (policy.toolLoop ? policy.tools : []);
  return !policy.toolLoop && toolNames.length > 0 ? { toolNames, toolChoice: 'none' } : { toolNames };
}

function toolRequest(
  s: InStage,
  call: { callId: string; tool: ToolExecuteRequest['tool']; arguments: Record<string, unknown> },
): ToolExecuteRequest {
  const { start } = s;
  return {
    callId: call.callId,
    runId: toolCallRequester(start, call.callId),
    tool: call.tool,
    arguments: call.arguments,
    stage: s.current.stage,
    userMode: start.userMode,
    reasoningEnabled: start.reasoningEnabled,
    delegation: delegationOf(s.delegations),
    projectRoot: start.projectRoot,
    ...(start.agent ? { workflowAgentType: start.agent.agentType } : {}),
    ...(start.editor ? { editor: start.editor } : {}),
  };
}

function reviewRequest(s: InStage): QaReviewRequest {
  const { start } = s;
  const { tool_summary, last_step_outcome } = promptVariables(s);
  return {
    runId: start.runId,
    conversationId: start.conversationId,
    userMode: start.userMode,
    reasoningEnabled: start.reasoningEnabled,
    userInput: start.userInput,
    answer: s.answer ?? '',
    projectRoot: start.projectRoot,
    toolSummary: tool_summary,
    lastStepOutcome: last_step_outcome,
  };
}
