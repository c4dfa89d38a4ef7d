import { z } from 'zod';
import { ApprovalDenied, ApprovalGiven, ApprovalPolicy, ApprovalRequested } from '../approvals';
import { Id, NonBlank, RunId } from '../common';
import { ContextIdString } from '../context';
import { ErrorCode } from '../errors';
import { ConflictDetail } from '../merge-conflicts';
import { CancelledBy } from '../common';
import { PreviousAttempt, UpstreamContext } from '../upstream';
import { AgentRole, PhaseName, WorkflowGates, WorkflowLimits, WorkflowStepsSnapshot, Worktree } from '../workflow-runs';
import { EventUnion, eventFamily } from './family';

/**
 * `workflow-<workflowId>` (seeds 001/003/004, docs/decisions/0023): the phases, the agents each
 * dispatched and what they returned, the collectors' decisions and the gates a person answers.
 * Each agent is an ordinary run, linked by its context id.
 */
export const workflowEventSchemas = {
  WorkflowStarted: z.object({
    workflowId: Id,
    kind: z.enum(['phases', 'steps']),
    /** The context id the workflow's own input (its goal) is known by: `{workflowId}/workflow/001/{startedAt}`. */
    rootContextId: ContextIdString,
    goal: NonBlank,
    projectRoot: NonBlank,
    phases: z.array(PhaseName).default([]),
    steps: WorkflowStepsSnapshot.optional(),
    reasoningEnabled: z.boolean(),
    approve: ApprovalPolicy,
    gates: WorkflowGates,
    limits: WorkflowLimits,
    /** How ticket agents are isolated: a git worktree each when the root is a git repository, otherwise a copy. */
    isolation: z.enum(['git-worktree', 'copy']),
    /** The working tree as it was when the workflow started (docs/decisions/0036): the ticket copies' start and the merge's base. */
    snapshot: z.object({ id: z.string().regex(/^[0-9a-f]{64}$/), files: z.number().int().min(0) }).optional(),
  }),
  PhaseStarted: z.object({ phase: NonBlank, round: z.number().int().min(1) }),
  AgentDispatched: z.object({
    agentId: NonBlank,
    phase: NonBlank,
    role: AgentRole,
    agentType: NonBlank,
    contextId: ContextIdString,
    runId: RunId,
    attempt: z.number().int().min(1),
    /** The agent's own task: its run's user message. */
    assignedGoal: NonBlank,
    upstream: z.array(UpstreamContext).default([]),
    previousAttempt: PreviousAttempt.optional(),
    /** Where the agent works when it is not the project root. */
    worktree: Worktree.optional(),
  }),
  AgentReturned: z.object({
    agentId: NonBlank,
    runId: RunId,
    contextId: ContextIdString,
    outcome: z.enum(['completed', 'failed', 'invalid']),
    /** The run's answer (completed or invalid), or its failure reason. */
    output: z.string(),
    /** The answer's document, checked against the role's schema (completed only). */
    result: z.unknown().optional(),
    error: z.object({ message: NonBlank, issues: z.array(z.string()).default([]) }).optional(),
  }),
  PhaseConsolidated: z.object({
    phase: NonBlank,
    round: z.number().int().min(1),
    agentId: NonBlank.describe('the collector'),
    decisionType: z.enum(['ADVANCE', 'RERUN', 'ROUTE_BACK', 'STOP']),
    rationale: z.string(),
    rerunAgentIds: z.array(NonBlank).default([]),
  }),
  PhaseRerouted: z.object({ from: NonBlank, to: NonBlank, reason: z.string() }),
  WorktreesMerged: z.object({
    phase: NonBlank,
    merged: z.array(z.object({ agentId: NonBlank, files: z.array(NonBlank) })),
    /** Files left as the user has them (docs/decisions/0036); `kept` says where the ticket's version is. */
    conflicts: z.array(z.object({ path: NonBlank, agentIds: z.array(NonBlank).min(1), ...ConflictDetail })),
    /** The snapshot the merge took as its base. */
    snapshotId: z.string().optional(),
  }),
  /** The ticket collector's resolved contents applied to conflicting files; the others stay conflicts. */
  ConflictsResolved: z.object({
    phase: NonBlank,
    round: z.number().int().min(1),
    resolved: z.array(NonBlank),
    unresolved: z.array(z.object({ path: NonBlank, reason: z.string() })),
  }),
  ApprovalRequested,
  ApprovalGiven,
  ApprovalDenied,
  WorkflowCompleted: z.object({ summary: z.string() }),
  /** A collector decided the goal cannot be reached (`STOP`): the workflow ends stopped, not completed (docs/decisions/0055). */
  WorkflowHalted: z.object({ phase: NonBlank, round: z.number().int().min(1), agentId: NonBlank, reason: z.string() }),
  WorkflowFailed: z.object({ code: ErrorCode, reason: z.string() }),
  /** Someone stopped the workflow: nothing more is dispatched, and its running agents are cancelled. */
  WorkflowCancelled: z.object({ by: CancelledBy, reason: z.string().max(500) }),
};

export const workflowEvents = eventFamily(workflowEventSchemas);
export type WorkflowEvent = EventUnion<typeof workflowEventSchemas>;
