import {
  ConsolidationTemplate,
  DEFAULT_WORKFLOW_LIMITS,
  DiscoveryCollectorResult,
  PHASES,
  PhaseName,
  PlanningCollectorResult,
  PreviousAttempt,
  UpstreamContext,
  formatContextId,
  phaseAgentType,
} from '@stagecraft/contracts';
import { WorkflowDecision, failWorkflow } from './decision';
import { dispatchAgent, dispatchCollector, dispatchQueued, previousAttemptOf } from './dispatch';
import { WorkflowPendingEvent, startedState } from './evolve';
import { askAfterPlanning, askBeforeMerge } from './gates';
import { WorkflowInput } from './inputs';
import { mergeWaiting } from './merge';
import { StartedWorkflow, agentRun, currentEntry, isWorking } from './state';
import { startStep } from './step-walk';
import { upstreamFor } from './upstream';

/** A new workflow: it starts, and enters its first phase (or its first step). */
export function startWorkflow(input: Extract<WorkflowInput, { type: 'WorkflowRequested' }>): WorkflowPendingEvent[] {
  const { request, workflowId, at } = input;
  const rootContextId = formatContextId({ workflowRunId: workflowId, agentType: 'workflow', sequence: 1, timestamp: at });
  const started: WorkflowPendingEvent = {
    type: 'WorkflowStarted',
    data: {
      workflowId,
      kind: input.steps ? 'steps' : 'phases',
      rootContextId,
      goal: request.goal,
      projectRoot: input.projectRoot,
      phases: input.steps ? [] : request.phases,
      ...(input.steps ? { steps: input.steps } : {}),
      reasoningEnabled: request.reasoningEnabled,
      approve: request.approve,
      gates: request.gates,
      limits: { ...DEFAULT_WORKFLOW_LIMITS, ...request.limits },
      isolation: input.isolation,
      ...(input.snapshot ? { snapshot: input.snapshot } : {}),
    },
  };
  const d = new WorkflowDecision(startedState(started.data), at);
  if (input.steps) startStep(d, 0);
  else startPhase(d, request.phases[0]);
  return [started, ...d.events];
}

/** Enters a phase (again, after a route back) with its orchestrator. */
export function startPhase(d: WorkflowDecision, phase: PhaseName, previous?: PreviousAttempt): void {
  const round = d.state.entries.filter((e) => e.phase === phase).length + 1;
  d.emit('PhaseStarted', { phase, round });
  const s = d.state;
  const entry = currentEntry(s);
  if (entry === null) return;
  const agentType = phaseAgentType(phase, 'orchestrator');
  dispatchAgent(d, {
    agentId: agentType,
    role: 'orchestrator',
    agentType,
    assignedGoal: `Plan the ${phase} phase of this goal and delegate it: ${s.start.goal}`,
    upstream: upstreamFor(s, entry, agentType),
    ...(previous ? { previousAttempt: previous } : {}),
  });
}

/**
 * Moves a phase on once its orchestrator delegated: dispatches waiting work agents within the parallel
 * limit; once all are done, the tickets phase merges (asking first when the workflow has that gate),
 * and the collector consolidates.
 */
export function followUp(d: WorkflowDecision): void {
  const s = d.state;
  const entry = currentEntry(s);
  if (s.status !== 'running' || entry === null || entry.status !== 'running' || entry.orchestrator === null) return;
  if (agentRun(s, entry, entry.orchestrator)?.status !== 'completed') return;
  const { maxAgentsPerPhase } = s.start.limits;
  if (entry.workAgents.length === 0 && entry.queue.length > maxAgentsPerPhase)
    return failWorkflow(
      d,
      'LIMIT_EXCEEDED',
      `the ${entry.phase} orchestrator asked for ${entry.queue.length} agents; maxAgentsPerPhase is ${maxAgentsPerPhase}`,
    );
  if (!dispatchQueued(d)) return;
  const now = currentEntry(d.state);
  if (now === null) return;
  if (mergeWaiting(d.state, now)) {
    // Without a gate to ask at, the shell merges the copies back (`mergeDue`), then the collector is dispatched.
    askBeforeMerge(d, now);
    return;
  }
  if (now.queue.length > 0 || now.workAgents.some((id) => isWorking(d.state, now, id)) || now.collector !== null) return;
  dispatchCollector(d);
}

/** The current phase is done: the next one starts (after planning, maybe once a person approved), or the workflow completes. */
export function advance(d: WorkflowDecision): void {
  const entry = currentEntry(d.state);
  if (entry === null || askAfterPlanning(d, entry)) return;
  const s = d.state;
  const next = s.start.phases[s.start.phases.indexOf(entry.phase as PhaseName) + 1];
  if (next === undefined) {
    const c = s.consolidated[entry.phase]?.result as ConsolidationTemplate | undefined;
    d.emit('WorkflowCompleted', { summary: c?.consolidatedOutput ?? `${entry.phase} consolidated` });
    return;
  }
  startPhase(d, next);
}

const PHASE_ORDER: readonly string[] = PHASES;

/** Goes back to an earlier phase, whose orchestrator sees what it did before, why, and what the later phases concluded. */
export function routeBack(d: WorkflowDecision, from: string, to: PhaseName, reason: string): void {
  const { maxRouteBacks } = d.state.start.limits;
  if (d.state.routeBacks >= maxRouteBacks)
    return failWorkflow(d, 'LIMIT_EXCEEDED', `${reason}; but the workflow has gone back maxRouteBacks (${maxRouteBacks}) times already`);
  d.emit('PhaseRerouted', { from, to, reason });
  const s = d.state;
  const last = [...s.entries].reverse().find((e) => e.phase === to);
  const orchestrator = last?.orchestrator ? agentRun(s, last, last.orchestrator) : undefined;
  const later = PHASE_ORDER.slice(PHASE_ORDER.indexOf(to) + 1).flatMap((phase) => consolidatedContext(s, phase));
  const previous = orchestrator
    ? { ...previousAttemptOf(orchestrator, reason), priorContexts: [...orchestrator.upstream, ...later] }
    : undefined;
  startPhase(d, to, previous);
}

/** A phase's accepted consolidation as upstream context, typed by the phase. */
function consolidatedContext(s: StartedWorkflow, phase: string): UpstreamContext[] {
  const c = s.consolidated[phase];
  if (c === undefined) return [];
  if (phase === 'discovery') return [{ kind: 'discovery-collector', result: c.result as DiscoveryCollectorResult }];
  if (phase === 'planning') return [{ kind: 'planning-collector', result: c.result as PlanningCollectorResult }];
  return [{ kind: 'consolidation', template: c.result as ConsolidationTemplate }];
}
