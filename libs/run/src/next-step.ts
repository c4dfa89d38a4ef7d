import { Stage } from '@stagecraft/contracts';
import { RunLimits } from './limits';
import { OpenToolCall, RunState } from './run-state';

export type RunStep =
  | { kind: 'enter_stage'; stage: Stage; iteration: number }
  | { kind: 'call_model' }
  | { kind: 'interpret' }
  | { kind: 'execute_tool'; call: OpenToolCall }
  | { kind: 'review' }
  | { kind: 'complete' }
  | { kind: 'finished' };

export function firstStage(state: RunState): Stage {
  const start = state.start;
  return start?.userMode === 'agent' && start.reasoningEnabled ? 'warmup' : 'act';
}

/** After a tool round: keep looping while the bound allows, then let the delivery gate judge. */
export function afterToolRound(state: RunState, limits: RunLimits): { stage: Stage; iteration: number } {
  const next = state.iteration + 1;
  return next > limits.maxToolIterations ? { stage: 'delivery_check', iteration: state.deliveryChecks } : { stage: 'tool_followup', iteration: next };
}

/** The one question the run loop asks after every append: what happens next? */
export function nextStep(state: RunState, limits: RunLimits): RunStep {
  if (state.status !== 'running') return { kind: 'finished' };
  if (state.stage === null) return { kind: 'enter_stage', stage: firstStage(state), iteration: 0 };
  if (state.unprocessed) return { kind: 'interpret' };
  if (state.openToolCalls.length > 0) return { kind: 'execute_tool', call: state.openToolCalls[0] };
  if (state.stage === 'qa_review') return state.qaReport ? { kind: 'complete' } : { kind: 'review' };
  if (state.toolRoundClosed) return { kind: 'enter_stage', ...afterToolRound(state, limits) };
  return { kind: 'call_model' };
}
