import {
  AgentRole,
  AgentStatus,
  ErrorCode,
  EventData,
  PendingApproval,
  PreviousAttempt,
  UpstreamContext,
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

/** What every started workflow has, whatever its status. */
export interface WorkflowProgress {
  start: WorkflowStart;
  startedAt: string;
  entries: readonly PhaseEntry[];
  /** Every agent run, by run id. */
  runs: Readonly<Record<string, AgentRun>>;
  /** The latest accepted collector result of each phase, with its context id. */
  consolidated: Readonly<Record<string, { contextId: string; result: unknown }>>;
  routeBacks: number;
  dispatched: number;
  sequences: SequenceState;
  /** Gates answered, by approval id. */
  answered: Readonly<Record<string, 'given' | 'denied'>>;
  events: number;
}

/** A workflow that goes on: running, or waiting for a person's answer to one approval. */
export type LiveWorkflow = WorkflowProgress & ({ status: 'running' } | { status: 'waiting'; pendingApproval: PendingApproval });

/** A workflow that has ended, with what it ended on; nothing more is dispatched for it. */
export type EndedWorkflow = WorkflowProgress &
  (
    | { status: 'completed'; summary: string }
    /** A collector decided the goal cannot be reached (`WorkflowHalted`). */
    | { status: 'stopped'; halt: { phase: string; agentId: string; reason: string } }
    /** A workflow stopped while it waited keeps showing what it waited for. */
    | { status: 'failed'; failure: { code: ErrorCode; reason: string }; pendingApproval?: PendingApproval }
    /** Who stopped the workflow, and why (`WorkflowCancelled`). */
    | { status: 'cancelled'; summary: string; cancellation: EventData<'WorkflowCancelled'> }
  );

export type StartedWorkflow = LiveWorkflow | EndedWorkflow;
export type WorkflowState = { status: 'new' } | StartedWorkflow;

export const isLive = (s: WorkflowState): s is LiveWorkflow => s.status === 'running' || s.status === 'waiting';

/** The fields every status has, without the ones of its status. */
export const progressOf = ({
  start,
  startedAt,
  entries,
  runs,
  consolidated,
  routeBacks,
  dispatched,
  sequences,
  answered,
  events,
}: StartedWorkflow): WorkflowProgress => ({
  start,
  startedAt,
  entries,
  runs,
  consolidated,
  routeBacks,
  dispatched,
  sequences,
  answered,
  events,
});

export const initialWorkflowState = (): WorkflowState => ({ status: 'new' });

export const currentEntry = (s: StartedWorkflow): PhaseEntry | null => s.entries.at(-1) ?? null;

export const agentRun = (s: StartedWorkflow, entry: PhaseEntry, agentId: string): AgentRun | undefined => {
  const runId = entry.latest[agentId];
  return runId === undefined ? undefined : s.runs[runId];
};

export const isWorking = (s: StartedWorkflow, entry: PhaseEntry, agentId: string): boolean =>
  agentRun(s, entry, agentId)?.status === 'dispatched';
