import { ConsolidationTemplate, DelegationTemplate, EventData, StagecraftError, WorkflowEvent } from '@stagecraft/contracts';
import { EMPTY_SEQUENCES, observeContextId, parseContextId } from '@stagecraft/contracts';
import { assignmentQueue } from './assignments';
import { PhaseEntry, StartedWorkflow, WorkflowState, progressOf } from './state';

/**
 * A workflow event as the decider chose it, or as it was read back. Its time is the recorded
 * `occurredAt` when it has one (an approval's `requestedAt` is that time, so a replay gives it again).
 */
export type WorkflowPendingEvent = {
  [T in WorkflowEvent['type']]: { type: T; data: EventData<T>; metadata?: { occurredAt?: string } };
}[WorkflowEvent['type']];

function withEntry(s: StartedWorkflow, change: (entry: PhaseEntry) => PhaseEntry): StartedWorkflow {
  const entry = s.entries.at(-1);
  if (entry === undefined) throw new StagecraftError('INVARIANT_VIOLATION', 'a phase event before any PhaseStarted');
  return { ...s, entries: [...s.entries.slice(0, -1), change(entry)] };
}

/** Folds one event into the workflow's state. Pure. */
export function evolveWorkflow(state: WorkflowState, event: WorkflowPendingEvent): WorkflowState {
  if (event.type === 'WorkflowStarted') return startedState(event.data);
  if (state.status === 'new') throw new StagecraftError('INVARIANT_VIOLATION', `${event.type} before WorkflowStarted`);
  return evolveStarted(state, event);
}

/** The state a `WorkflowStarted` begins. */
export function startedState(start: EventData<'WorkflowStarted'>): StartedWorkflow {
  const { rootContextId } = start;
  return {
    status: 'running',
    start,
    startedAt: parseContextId(rootContextId).timestamp,
    entries: [],
    runs: {},
    consolidated: {},
    routeBacks: 0,
    dispatched: 0,
    sequences: observeContextId(EMPTY_SEQUENCES, rootContextId),
    answered: {},
    events: 1,
  };
}

/** Folds one event into a workflow that has started: it stays one. Pure. */
export function evolveStarted(state: StartedWorkflow, event: WorkflowPendingEvent): StartedWorkflow {
  if (event.type === 'WorkflowStarted') return startedState(event.data);
  const s = { ...state, events: state.events + 1 };
  switch (event.type) {
    case 'PhaseStarted': {
      const entry: PhaseEntry = {
        phase: event.data.phase,
        round: event.data.round,
        reruns: 0,
        latest: {},
        orchestrator: null,
        workAgents: [],
        collector: null,
        queue: [],
        merge: { status: 'none', conflicts: [] },
        status: 'running',
      };
      return { ...s, entries: [...s.entries, entry] };
    }
    case 'AgentDispatched': {
      const d = event.data;
      const next = withEntry(s, (entry) => ({
        ...entry,
        latest: { ...entry.latest, [d.agentId]: d.runId },
        orchestrator: d.role === 'orchestrator' || d.role === 'step' ? d.agentId : entry.orchestrator,
        collector: d.role === 'collector' ? d.agentId : entry.collector,
        workAgents: d.role === 'agent' && !entry.workAgents.includes(d.agentId) ? [...entry.workAgents, d.agentId] : entry.workAgents,
        queue: d.role === 'agent' ? entry.queue.filter((q) => q.agentId !== d.agentId) : entry.queue,
      }));
      const round = next.entries.at(-1)?.round ?? 1;
      return {
        ...next,
        dispatched: next.dispatched + 1,
        sequences: observeContextId(next.sequences, d.contextId),
        runs: {
          ...next.runs,
          [d.runId]: {
            agentId: d.agentId,
            phase: d.phase,
            round,
            role: d.role,
            agentType: d.agentType,
            contextId: d.contextId,
            runId: d.runId,
            attempt: d.attempt,
            assignedGoal: d.assignedGoal,
            upstream: d.upstream,
            ...(d.previousAttempt ? { previousAttempt: d.previousAttempt } : {}),
            ...(d.worktree ? { worktree: d.worktree } : {}),
            status: 'dispatched',
            dispatchedAt: parseContextId(d.contextId).timestamp,
          },
        },
      };
    }
    case 'AgentReturned': {
      const r = event.data;
      const run = s.runs[r.runId];
      if (run === undefined) throw new StagecraftError('INVARIANT_VIOLATION', `AgentReturned for ${r.runId}, which was never dispatched`);
      const returned = {
        ...s,
        runs: {
          ...s.runs,
          [r.runId]: {
            ...run,
            status: r.outcome,
            output: r.output,
            ...(r.result !== undefined ? { result: r.result } : {}),
            ...(r.error ? { error: r.error } : {}),
          },
        },
      };
      if (run.role !== 'orchestrator' || r.outcome !== 'completed') return returned;
      const queue = assignmentQueue(r.result as DelegationTemplate, workAgentType(run.agentType));
      return withEntry(returned, (entry) => ({ ...entry, queue }));
    }
    case 'PhaseConsolidated': {
      const d = event.data;
      const next = withEntry(s, (entry) => {
        const decision = { decisionType: d.decisionType, rationale: d.rationale };
        if (d.decisionType !== 'RERUN')
          return { ...entry, decision, status: d.decisionType === 'ROUTE_BACK' ? entry.status : 'consolidated' };
        const queue = d.rerunAgentIds.flatMap((agentId, index) => {
          const runId = entry.latest[agentId];
          const run = runId === undefined ? undefined : s.runs[runId];
          return run ? [{ agentId, index, assignedGoal: run.assignedGoal, ...ticketOf(run) }] : [];
        });
        return { ...entry, decision, reruns: entry.reruns + 1, collector: null, queue };
      });
      const entry = next.entries.at(-1) as PhaseEntry;
      const collectorRun = next.runs[entry.latest[d.agentId] ?? ''];
      if (collectorRun === undefined) return next;
      const resolving = resolutionsOf(entry, collectorRun.result);
      return {
        ...(resolving.length > 0 ? withEntry(next, (e) => ({ ...e, merge: { ...e.merge, resolving } })) : next),
        consolidated: { ...next.consolidated, [d.phase]: { contextId: collectorRun.contextId, result: collectorRun.result } },
      };
    }
    case 'PhaseRerouted':
      return { ...withEntry(s, (entry) => ({ ...entry, status: 'rerouted' })), routeBacks: s.routeBacks + 1 };
    case 'WorktreesMerged':
      return withEntry(s, (entry) => ({ ...entry, merge: { status: 'merged', conflicts: event.data.conflicts } }));
    case 'ConflictsResolved': {
      const { phase, round, resolved } = event.data;
      return {
        ...s,
        entries: s.entries.map((entry) =>
          entry.phase === phase && entry.round === round
            ? {
                ...entry,
                merge: { ...entry.merge, conflicts: entry.merge.conflicts.filter((c) => !resolved.includes(c.path)), resolving: [] },
              }
            : entry,
        ),
      };
    }
    case 'ApprovalRequested': {
      const at = event.metadata?.occurredAt;
      return { ...progressOf(s), status: 'waiting', pendingApproval: { ...event.data, ...(at ? { requestedAt: at } : {}) } };
    }
    case 'ApprovalGiven':
      return { ...progressOf(s), status: 'running', answered: { ...s.answered, [event.data.approvalId]: 'given' } };
    case 'ApprovalDenied': {
      const denied: StartedWorkflow = {
        ...progressOf(s),
        status: 'running',
        answered: { ...s.answered, [event.data.approvalId]: 'denied' },
      };
      if (s.status !== 'waiting' || s.pendingApproval.kind !== 'before_merge') return denied;
      return withEntry(denied, (entry) => ({ ...entry, merge: { status: 'refused', conflicts: [], refusal: event.data.reason } }));
    }
    case 'WorkflowCompleted':
      return { ...progressOf(s), status: 'completed', summary: event.data.summary };
    case 'WorkflowHalted':
      return {
        ...progressOf(s),
        status: 'stopped',
        halt: { phase: event.data.phase, agentId: event.data.agentId, reason: event.data.reason },
      };
    case 'WorkflowFailed':
      return {
        ...progressOf(s),
        status: 'failed',
        failure: { code: event.data.code, reason: event.data.reason },
        ...(s.status === 'waiting' || s.status === 'failed' ? { pendingApproval: s.pendingApproval } : {}),
      };
    case 'WorkflowCancelled':
      return {
        ...progressOf(s),
        status: 'cancelled',
        cancellation: event.data,
        summary: `cancelled by ${event.data.by}${event.data.reason ? `: ${event.data.reason}` : ''}`,
      };
    default: {
      const unreachable: never = event;
      throw new StagecraftError('INTERNAL', `unknown workflow event ${JSON.stringify(unreachable)}`);
    }
  }
}

/** The resolved contents a ticket collector's document gives for this entry's conflicting files (docs/decisions/0036). */
function resolutionsOf(entry: PhaseEntry, result: unknown): { path: string; content: string }[] {
  if (entry.phase !== 'tickets' || entry.merge.conflicts.length === 0) return [];
  const conflicting = new Set(entry.merge.conflicts.map((c) => c.path));
  const resolutions = (result as Partial<ConsolidationTemplate> | undefined)?.conflictResolutions ?? [];
  const byPath = new Map<string, string>();
  for (const r of resolutions)
    if (r.path !== undefined && r.resolvedContent !== undefined && conflicting.has(r.path)) byPath.set(r.path, r.resolvedContent);
  return [...byPath.entries()].map(([path, content]) => ({ path, content }));
}

/** The work agents' type of the phase an orchestrator of `orchestratorType` leads. */
export const workAgentType = (orchestratorType: string): string => orchestratorType.replace(/-orchestrator$/, '-agent');

const ticketOf = (run: { upstream: readonly { kind: string }[] }): { ticketId?: string } => {
  const ticket = run.upstream.find((u) => u.kind === 'ticket') as { ticket: { ticketId: string } } | undefined;
  return ticket ? { ticketId: ticket.ticket.ticketId } : {};
};
