import { ConsolidationTemplate, ErrorCode } from '@stagecraft/contracts';
import { upstreamId } from '../upstream/describe-upstream';
import { consolidate, decisionIssues } from './collector';
import { WorkflowDecision, failWorkflow } from './decision';
import { capped, dispatchAgent, previousAttemptOf, specOf } from './dispatch';
import { parseAgentDocument } from './documents';
import { WorkflowInput } from './inputs';
import { followUp } from './phases';
import { AgentRun, PhaseEntry, StartedWorkflow, agentRun, currentEntry, isLive } from './state';
import { stepDone } from './step-walk';

/** The context an agent's document names as its upstream: its first upstream context with an id, else the goal's. */
function upstreamContextIdOf(s: StartedWorkflow, run: AgentRun): string {
  for (const u of run.upstream) if (u.kind !== 'goal' && u.kind !== 'merge-conflicts') return upstreamId(u);
  return s.start.rootContextId;
}

/**
 * Seed 001's `upstreamContextChain` of a collector's consolidation, kept by the workflow (not the model):
 * the workflow's root context, the accepted consolidations of the phases before, then this phase's
 * orchestrator and the work agents whose results it consolidates.
 */
function contextChainOf(s: StartedWorkflow, entry: PhaseEntry): string[] {
  const earlier = s.entries
    .filter((e) => e !== entry && e.status === 'consolidated')
    .map((e) => s.consolidated[e.phase]?.contextId)
    .filter((id): id is string => id !== undefined);
  const here = [entry.orchestrator, ...entry.workAgents].flatMap((agentId) => {
    const run = agentId === null ? undefined : agentRun(s, entry, agentId);
    return run ? [run.contextId] : [];
  });
  return [...new Set([s.start.rootContextId, ...earlier, ...here])];
}

/** An agent's run ended: its answer is checked against its role's document and the workflow goes on from it. */
export function agentFinished(d: WorkflowDecision, input: Extract<WorkflowInput, { type: 'AgentFinished' }>): void {
  const s = d.state;
  const run = s.runs[input.runId];
  const entry = currentEntry(s);
  // A second report of the same run (a restart re-reads the log) changes nothing.
  if (run === undefined || run.status !== 'dispatched' || !isLive(s) || entry === null) return;
  const returned = { agentId: run.agentId, runId: run.runId, contextId: run.contextId };
  if (input.outcome === 'failed') {
    const reason = input.failure?.reason ?? 'the run failed';
    d.emit('AgentReturned', { ...returned, outcome: 'failed', output: capped(reason), error: { message: reason, issues: [] } });
  } else {
    const parsed = parseAgentDocument(run.agentType, input.answer, {
      resultId: run.contextId,
      upstreamContextId: upstreamContextIdOf(s, run),
      ...(run.role === 'collector' ? { upstreamContextChain: contextChainOf(s, entry) } : {}),
    });
    const issues =
      parsed.ok && run.role === 'collector' ? decisionIssues(s, entry, (parsed.document as ConsolidationTemplate).decision) : [];
    if (parsed.ok && issues.length === 0)
      d.emit('AgentReturned', {
        ...returned,
        outcome: 'completed',
        output: capped(input.answer),
        ...(parsed.document === undefined ? {} : { result: parsed.document }),
      });
    else
      d.emit('AgentReturned', {
        ...returned,
        outcome: 'invalid',
        output: capped(input.answer),
        error: parsed.ok
          ? { message: 'the decision does not fit this workflow', issues }
          : { message: parsed.message, issues: parsed.issues },
      });
  }
  const after = d.state.runs[run.runId];
  if (after.status !== 'completed') return retryOrGiveUp(d, after);
  switch (after.role) {
    case 'step':
      return stepDone(d);
    case 'collector':
      return consolidate(d, after);
    default:
      return followUp(d);
  }
}

/** An agent that failed or answered out of format is asked again with its attempt, a bounded number of times. */
function retryOrGiveUp(d: WorkflowDecision, run: AgentRun): void {
  const s = d.state;
  const entry = currentEntry(s);
  if (entry === null) return;
  const tries = Object.values(s.runs).filter(
    (r) =>
      r.agentId === run.agentId && r.phase === entry.phase && r.round === entry.round && (r.status === 'invalid' || r.status === 'failed'),
  ).length;
  if (tries <= s.start.limits.maxFormatCorrections) {
    const correction =
      run.status === 'invalid'
        ? 'Answer again with one ```json block holding the document your role describes, fixing the issues listed.'
        : undefined;
    dispatchAgent(d, { ...specOf(run), previousAttempt: previousAttemptOf(run, correction) });
    return;
  }
  // The collector hears that this agent could not do its part, and decides.
  if (run.role === 'agent') return followUp(d);
  const code: ErrorCode = run.status === 'invalid' ? 'MODEL_FORMAT' : 'INTERNAL';
  failWorkflow(d, code, `${run.agentType} ${run.agentId} gave no usable answer after ${tries} attempts: ${run.error?.message ?? 'failed'}`);
}
