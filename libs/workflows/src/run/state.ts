import {
  AgentRole,
  AgentStatus,
  ErrorCode,
  EventData,
  PendingApproval,
  PreviousAttempt,
  UpstreamContext,
  WorkflowStatus,
  Worktree,
} from '@stagecraft/contracts';
import { SequenceState } from '@stagecraft/contracts';

export type WorkflowStart = EventData<'WorkflowStarted'>;

/** One attempt of one agent: a run. */
export interface AgentRun {
  agentId: string;
  phase: string;
  round: number;
  role: AgentRole;
  agentType: string;
  contextId: string;
  runId: string;
  attempt: number;
  assignedGoal: string;
  upstream: readonly UpstreamContext[];
  previousAttempt?: PreviousAttempt;
  worktree?: Worktree;
  status: AgentStatus;
  output?: string;
  /** The checked document (completed runs of roles that answer one). */
  result?: unknown;
  error?: { message: string; issues: string[] };
  /** The run's time of dispatch, for a previous attempt's `previousAttemptAt`. */
  dispatchedAt: string;
}

/** A work agent an orchestrator asked for, not dispatched yet (the parallel limit holds it back). */
export interface QueuedAgent {
  agentId: string;
  assignedGoal: string;
  /** Its place among the delegation's assignments. */
  index: number;
  /** Ticket agents: the ticket they implement. */
  ticketId?: string;
}

/** One entry into a phase (a phase is entered again after a ROUTE_BACK). */
export interface PhaseEntry {
  phase: string;
  round: number;
  /** RERUN decisions taken in this entry. */
  reruns: number;
  /** The current attempt of each agent of this entry, by agentId: orchestrator, work agents, collector. */
  latest: Readonly<Record<string, string>>;
  orchestrator: string | null;
  workAgents: readonly string[];
  collector: string | null;
  queue: readonly QueuedAgent[];
  /** Ticket phase: whether the agents' copies were merged back, and what conflicted. */
  merge: {
    status: 'none' | 'waiting' | 'merged' | 'refused';
    conflicts: readonly EventData<'WorktreesMerged'>['conflicts'][number][];
    refusal?: string;
    /** Resolved contents the ticket collector gave for conflicting files, not applied yet. */
    resolving?: readonly { path: string; content: string }[];
  };
  status: 'running' | 'consolidated' | 'rerouted';
  decision?: { decisionType: string; rationale: string };
}

export interface WorkflowProgress {
  start: WorkflowStart;
  startedAt: string;
  entries: readonly PhaseEntry[];
  /** Every agent run, by run id. */
  runs: Readonly<Record<string, AgentRun>>;
  /** The latest accepted collector result of each phase, with its context id. */
  consolidated: Readonly<Record<string, { contextId: string; result: unknown }>>;
  /** Answers of the steps of a seed-004 workflow, in order. */
  routeBacks: number;
  dispatched: number;
  sequences: SequenceState;
  pendingApproval: PendingApproval | null;
  /** Gates answered, by approval id. */
  answered: Readonly<Record<string, 'given' | 'denied'>>;
  events: number;
  summary: string | null;
  failure: { code: ErrorCode; reason: string } | null;
  /** Who stopped the workflow, and why (`WorkflowCancelled`). */
  cancellation?: EventData<'WorkflowCancelled'>;
}

export type WorkflowState = { status: 'new' } | ({ status: Exclude<WorkflowStatus, 'waiting'> | 'waiting' } & WorkflowProgress);
export type StartedWorkflow = Exclude<WorkflowState, { status: 'new' }>;

export const initialWorkflowState = (): WorkflowState => ({ status: 'new' });

export const currentEntry = (s: StartedWorkflow): PhaseEntry | null => s.entries.at(-1) ?? null;

export const agentRun = (s: StartedWorkflow, entry: PhaseEntry, agentId: string): AgentRun | undefined => {
  const runId = entry.latest[agentId];
  return runId === undefined ? undefined : s.runs[runId];
};

export const isWorking = (s: StartedWorkflow, entry: PhaseEntry, agentId: string): boolean =>
  agentRun(s, entry, agentId)?.status === 'dispatched';

/** The approval id of a gate of a phase round: the decider asks under it, and reads the answer by it. */
export const gateId = (s: StartedWorkflow, entry: PhaseEntry, kind: 'before_merge' | 'after_planning'): string =>
  `${s.start.workflowId.slice(0, 90)}.${kind}.${entry.round}`;

/** The tickets phase's agents are all done and nothing is merged yet: the copies are merged next. */
export function mergeWaiting(s: StartedWorkflow, entry: PhaseEntry): boolean {
  if (entry.phase !== 'tickets' || entry.status !== 'running' || entry.merge.status !== 'none' || entry.collector !== null) return false;
  if (entry.orchestrator === null || agentRun(s, entry, entry.orchestrator)?.status !== 'completed') return false;
  return entry.queue.length === 0 && !entry.workAgents.some((id) => isWorking(s, entry, id));
}

/** The merge is due: it waits, and the workflow has no before-merge gate, or a person opened it. */
export const mergeDue = (s: StartedWorkflow, entry: PhaseEntry): boolean =>
  mergeWaiting(s, entry) && (!s.start.gates.beforeMerge || s.answered[gateId(s, entry, 'before_merge')] === 'given');
