import { PhaseName, PreviousAttempt, UpstreamContext, formatContextId, nextSequence, phaseAgentType } from '@stagecraft/contracts';
import { WorkflowDecision, failWorkflow } from './decision';
import { AgentRun, QueuedAgent, agentRun, currentEntry, isLive, isWorking } from './state';
import { ticketFor, upstreamFor } from './upstream';

export interface DispatchSpec {
  agentId: string;
  role: AgentRun['role'];
  agentType: string;
  assignedGoal: string;
  upstream: UpstreamContext[];
  previousAttempt?: PreviousAttempt;
}

const MAX_OUTPUT = 200_000;
export const capped = (text: string): string => (text.length <= MAX_OUTPUT ? text : `${text.slice(0, MAX_OUTPUT - 20)}\n[… cut]`);

/** Starts one agent of the current phase; false when the workflow's agent budget is spent (it fails then). */
export function dispatchAgent(d: WorkflowDecision, spec: DispatchSpec): boolean {
  const s = d.state;
  const entry = currentEntry(s);
  if (entry === null) return false;
  if (s.dispatched >= s.start.limits.maxAgents) {
    failWorkflow(d, 'LIMIT_EXCEEDED', `the workflow would dispatch more than maxAgents (${s.start.limits.maxAgents}) agents`);
    return false;
  }
  const { workflowId, projectRoot } = s.start;
  // Attempts count across the entries of a phase, so a phase entered again goes on numbering.
  const prior = Object.values(s.runs)
    .filter((r) => r.agentId === spec.agentId && r.phase === entry.phase)
    .at(-1);
  const attempt = prior ? prior.attempt + 1 : 1;
  const { sequence } = nextSequence(s.sequences, workflowId, spec.agentType);
  const contextId = formatContextId({ workflowRunId: workflowId, agentType: spec.agentType, sequence, timestamp: d.at });
  const runId = `${workflowId.slice(0, 100)}.${s.dispatched + 1}`;
  const isolated = spec.role === 'agent' && entry.phase === 'tickets';
  d.emit('AgentDispatched', {
    agentId: spec.agentId,
    phase: entry.phase,
    role: spec.role,
    agentType: spec.agentType,
    contextId,
    runId,
    attempt,
    assignedGoal: spec.assignedGoal,
    upstream: spec.upstream,
    ...(spec.previousAttempt ? { previousAttempt: spec.previousAttempt } : {}),
    ...(isolated
      ? {
          worktree: {
            path: `${projectRoot}/.stagecraft/worktrees/${workflowId}/${spec.agentId}.${attempt}`,
            method: s.start.isolation,
            // The copy starts from the snapshot the merge later takes as its base.
            ...(s.start.snapshot ? { base: s.start.snapshot.id } : {}),
          },
        }
      : {}),
  });
  return true;
}

/** Seed 001 §3: what the attempt being repeated produced, and why it is repeated. */
export function previousAttemptOf(run: AgentRun, why?: string): PreviousAttempt {
  const error =
    run.status === 'failed' || run.status === 'invalid'
      ? { message: [run.error?.message ?? 'the run failed', ...(run.error?.issues ?? []).map((i) => `- ${i}`)].join('\n') }
      : why
        ? { message: why }
        : undefined;
  return {
    previousContextId: run.contextId,
    attemptNumber: run.attempt,
    previousAttemptAt: run.dispatchedAt,
    serializedOutput: capped(run.output ?? ''),
    ...(error ? { error } : {}),
    priorContexts: [...run.upstream],
  };
}

/** The same agent asked again, as it was asked before. */
export const specOf = (run: AgentRun): DispatchSpec => ({
  agentId: run.agentId,
  role: run.role,
  agentType: run.agentType,
  assignedGoal: run.assignedGoal,
  upstream: [...run.upstream],
});

/**
 * Dispatches the current phase's waiting work agents (an orchestrator's assignments, or the agents a
 * collector reruns) while fewer than the parallel limit work. False when a dispatch ended the workflow.
 */
export function dispatchQueued(d: WorkflowDecision): boolean {
  for (;;) {
    const s = d.state;
    const entry = currentEntry(s);
    if (entry === null) return false;
    const working = entry.workAgents.filter((id) => isWorking(s, entry, id)).length;
    const next: QueuedAgent | undefined = entry.queue[0];
    if (next === undefined || working >= s.start.limits.maxParallelAgents || !isLive(s)) return true;
    const workType = phaseAgentType(entry.phase as PhaseName, 'agent');
    const prior = agentRun(s, entry, next.agentId);
    const ticket = workType === 'ticket-agent' ? ticketFor(s, next.ticketId, next.index) : undefined;
    const rationale =
      entry.decision?.decisionType === 'RERUN'
        ? `The ${entry.phase} collector asked for this again: ${entry.decision.rationale}`
        : undefined;
    const dispatched = dispatchAgent(d, {
      agentId: next.agentId,
      role: 'agent',
      agentType: workType,
      assignedGoal: next.assignedGoal,
      upstream: prior ? [...prior.upstream] : upstreamFor(s, entry, workType, { ticket, assignmentIndex: next.index }),
      ...(prior ? { previousAttempt: previousAttemptOf(prior, rationale) } : {}),
    });
    if (!dispatched) return false;
  }
}

/** Dispatches the current phase's collector, told what it decided before when it is asked again. */
export function dispatchCollector(d: WorkflowDecision): void {
  const s = d.state;
  const entry = currentEntry(s);
  if (entry === null) return;
  const agentType = phaseAgentType(entry.phase as PhaseName, 'collector');
  const prior = agentRun(s, entry, agentType);
  dispatchAgent(d, {
    agentId: agentType,
    role: 'collector',
    agentType,
    assignedGoal: `Consolidate the ${entry.phase} phase of this goal and decide what happens next: ${s.start.goal}`,
    upstream: upstreamFor(s, entry, agentType),
    ...(prior ? { previousAttempt: previousAttemptOf(prior, 'Consolidate again: some agents were run again since.') } : {}),
  });
}
