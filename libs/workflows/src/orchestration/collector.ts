import { ConsolidationTemplate, PhaseName, StagecraftError } from '@stagecraft/contracts';
import { WorkflowDecision, failWorkflow } from './decision';
import { advance, followUp, routeBack } from './phases';
import { AgentRun, PhaseEntry, StartedWorkflow, currentEntry } from './state';

/** Checks a collector's decision against the workflow: the agents it reruns and the phase it routes back to exist. */
export function decisionIssues(s: StartedWorkflow, entry: PhaseEntry, decision: ConsolidationTemplate['decision']): string[] {
  if (decision.decisionType === 'RERUN') {
    if (decision.rerunAgentIds.length === 0) return ['decision.rerunAgentIds: RERUN names no agent'];
    const unknown = decision.rerunAgentIds.filter((id) => !entry.workAgents.includes(id));
    return unknown.length > 0
      ? [`decision.rerunAgentIds: not agents of this phase: ${unknown.join(', ')} (they are: ${entry.workAgents.join(', ')})`]
      : [];
  }
  if (decision.decisionType === 'ROUTE_BACK') {
    const target = routeBackTarget(s, entry, decision.requestedPhase);
    return target === null
      ? [
          `decision.requestedPhase: no earlier phase ${decision.requestedPhase ?? 'before ' + entry.phase} in this workflow (${s.start.phases.join(', ')})`,
        ]
      : [];
  }
  return [];
}

function routeBackTarget(s: StartedWorkflow, entry: PhaseEntry, requested: string | undefined): PhaseName | null {
  const here = s.start.phases.indexOf(entry.phase as PhaseName);
  const target = requested ?? s.start.phases[here - 1];
  const at = s.start.phases.indexOf(target as PhaseName);
  return at >= 0 && at < here ? (target as PhaseName) : null;
}

/**
 * A collector's checked decision is recorded and followed: the next phase, the named agents again (the
 * rerun queue is the recorded decision's, a bounded number of times), an earlier phase, or the end.
 */
export function consolidate(d: WorkflowDecision, run: AgentRun): void {
  const s = d.state;
  const entry = currentEntry(s);
  if (entry === null) return;
  const { decision } = run.result as ConsolidationTemplate;
  const { limits } = s.start;
  d.emit('PhaseConsolidated', {
    phase: entry.phase,
    round: entry.round,
    agentId: run.agentId,
    decisionType: decision.decisionType,
    rationale: decision.rationale,
    rerunAgentIds: decision.decisionType === 'RERUN' ? decision.rerunAgentIds : [],
  });
  switch (decision.decisionType) {
    case 'ADVANCE':
      return advance(d);
    case 'RERUN':
      if (entry.reruns >= limits.maxReruns)
        return failWorkflow(d, 'LIMIT_EXCEEDED', `the ${entry.phase} collector asked for more than maxReruns (${limits.maxReruns}) reruns`);
      return followUp(d);
    case 'ROUTE_BACK': {
      const target = routeBackTarget(s, entry, decision.requestedPhase) as PhaseName;
      return routeBack(d, entry.phase, target, `the ${entry.phase} collector routed back: ${decision.rationale}`);
    }
    case 'STOP':
      // The goal cannot be reached: that is not a completion, and clients must be able to tell (docs/decisions/0055).
      d.emit('WorkflowHalted', { phase: entry.phase, round: entry.round, agentId: run.agentId, reason: decision.rationale });
      return;
    default: {
      const unreachable: never = decision.decisionType;
      throw new StagecraftError('INTERNAL', `unknown collector decision ${String(unreachable)}`);
    }
  }
}
