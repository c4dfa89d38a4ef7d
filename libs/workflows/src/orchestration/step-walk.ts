import { STEP_AGENT_TYPE, UpstreamContext } from '@stagecraft/contracts';
import { composeStepPrompt } from '../steps/compose';
import { WorkflowDecision } from './decision';
import { dispatchAgent } from './dispatch';
import { agentRun, currentEntry } from './state';

/** A seed-004 workflow enters its `index`-th step, which builds on the answers of the steps before it. */
export function startStep(d: WorkflowDecision, index: number): void {
  const steps = d.state.start.steps?.steps ?? [];
  const step = steps[index];
  d.emit('PhaseStarted', { phase: step.id, round: 1 });
  const s = d.state;
  const upstream: UpstreamContext[] = s.entries.flatMap((entry) => {
    const run = entry.orchestrator === null ? undefined : agentRun(s, entry, entry.orchestrator);
    return run?.status === 'completed'
      ? [{ kind: 'result' as const, resultId: run.contextId, agentType: STEP_AGENT_TYPE, output: run.output || '(no answer)' }]
      : [];
  });
  dispatchAgent(d, {
    agentId: step.id,
    role: 'step',
    agentType: STEP_AGENT_TYPE,
    assignedGoal: `${composeStepPrompt(step)}\n\nGoal: ${s.start.goal}`,
    upstream,
  });
}

/** A step answered: the next step starts, or the workflow completes with the last answer. */
export function stepDone(d: WorkflowDecision): void {
  const s = d.state;
  const entry = currentEntry(s);
  if (entry === null) return;
  const steps = s.start.steps?.steps ?? [];
  const index = steps.findIndex((step) => step.id === entry.phase);
  if (index + 1 < steps.length) return startStep(d, index + 1);
  const last = agentRun(s, entry, entry.orchestrator ?? '');
  d.emit('WorkflowCompleted', { summary: last?.output ?? `${steps.length} steps done` });
}
