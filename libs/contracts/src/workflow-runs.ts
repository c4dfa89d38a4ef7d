import { z } from 'zod';
import { ApprovalPolicy, PendingApproval } from './approvals';
import { ErrorCode } from './errors';
import { CancelledBy, Id, NonBlank, RunId } from './common';
import { ContextIdString } from './context';
import { PreviousAttempt, UpstreamContext } from './upstream';
import { WorkflowStep } from './workflows';

/** Seeds 001/003: discovery → planning → tickets. */
export const PhaseName = z.enum(['discovery', 'planning', 'tickets']);
export type PhaseName = z.infer<typeof PhaseName>;
export const PHASES = PhaseName.options;

/** Each phase: an orchestrator that delegates, agents that work in parallel, a collector that consolidates; a step of a seed-004 workflow. */
export const AgentRole = z.enum(['orchestrator', 'agent', 'collector', 'step']);
export type AgentRole = z.infer<typeof AgentRole>;

export const WorkflowLimits = z.object({
  maxParallelAgents: z.number().int().min(1).max(64).describe('agents of a phase that run at the same time'),
  maxAgentsPerPhase: z.number().int().min(1).max(64).describe('assignments of one delegation that are dispatched; more fail the workflow'),
  maxReruns: z.number().int().min(0).max(10).describe('RERUN decisions per phase entry'),
  maxRouteBacks: z.number().int().min(0).max(10).describe('ROUTE_BACK decisions per workflow'),
  maxFormatCorrections: z.number().int().min(0).max(5).describe('times an agent whose answer does not match its schema is asked again'),
  maxAgents: z.number().int().min(1).max(1000).describe('agents dispatched over the whole workflow'),
});
export type WorkflowLimits = z.infer<typeof WorkflowLimits>;
export const DEFAULT_WORKFLOW_LIMITS: WorkflowLimits = {
  maxParallelAgents: 4,
  maxAgentsPerPhase: 8,
  maxReruns: 2,
  maxRouteBacks: 2,
  maxFormatCorrections: 2,
  maxAgents: 64,
};

export const WorkflowGates = z.object({
  afterPlanning: z.boolean().default(false).describe('wait for a person to approve the tickets before the tickets phase'),
  beforeMerge: z.boolean().default(false).describe("wait for a person to approve before the ticket agents' changes are merged"),
});
export type WorkflowGates = z.infer<typeof WorkflowGates>;

/** A seed-004 workflow walked step by step: its definition as it was when the workflow started. */
export const WorkflowStepsSnapshot = z.object({ definitionId: NonBlank, name: NonBlank, steps: z.array(WorkflowStep).min(1) });
export type WorkflowStepsSnapshot = z.infer<typeof WorkflowStepsSnapshot>;

export const WorkflowStartRequest = z
  .object({
    workflowId: Id.optional(),
    goal: NonBlank.max(20_000),
    projectRoot: NonBlank,
    phases: z.array(PhaseName).min(1).default([...PHASES]).describe('a prefix-closed run of phases, in order'),
    /** A seed-004 workflow (by id) to walk instead of the three phases. */
    workflow: Id.optional(),
    reasoningEnabled: z.boolean().default(false),
    approve: ApprovalPolicy.default('never'),
    gates: WorkflowGates.default({ afterPlanning: false, beforeMerge: false }),
    limits: WorkflowLimits.partial().default({}),
  })
  .superRefine((request, ctx) => {
    const order = request.phases.map((p) => PHASES.indexOf(p));
    if (order.some((n, i) => i > 0 && n <= order[i - 1]))
      ctx.addIssue({ code: 'custom', path: ['phases'], message: 'phases are listed once each, in the order discovery, planning, tickets' });
  });
export type WorkflowStartRequest = z.input<typeof WorkflowStartRequest>;
export const WorkflowStartReply = z.object({ workflowId: Id });
export type WorkflowStartReply = z.infer<typeof WorkflowStartReply>;

export const AgentStatus = z.enum(['dispatched', 'completed', 'failed', 'invalid']);
export type AgentStatus = z.infer<typeof AgentStatus>;

export const WorkflowAgentView = z.object({
  agentId: NonBlank,
  agentType: NonBlank,
  role: AgentRole,
  contextId: ContextIdString,
  runId: RunId,
  attempt: z.number().int().min(1),
  status: AgentStatus,
  summary: z.string().optional(),
  /** A tool call of this agent's run waits for a person (`stagecraft approve <runId>`). */
  pendingApproval: PendingApproval.optional(),
});
export type WorkflowAgentView = z.infer<typeof WorkflowAgentView>;

export const WorkflowPhaseView = z.object({
  phase: NonBlank,
  round: z.number().int().min(1),
  status: z.enum(['running', 'consolidated', 'rerouted']),
  agents: z.array(WorkflowAgentView),
  decision: z.object({ decisionType: NonBlank, rationale: z.string() }).optional(),
  /** A step of a seed-004 workflow: what the user is shown of it (never its agentRole). */
  step: z.object({ title: NonBlank, prompt: NonBlank }).optional(),
});
export type WorkflowPhaseView = z.infer<typeof WorkflowPhaseView>;

/** `stopped`: a collector found the goal cannot be reached (`WorkflowHalted`). */
export const WorkflowStatus = z.enum(['running', 'waiting', 'completed', 'failed', 'cancelled', 'stopped']);
export type WorkflowStatus = z.infer<typeof WorkflowStatus>;

/** A ticket agent's copy and where its merge stands (docs/decisions/0036): kept until its merge is decided. */
export const WorkflowWorktreeView = z.object({
  agentId: NonBlank,
  runId: RunId,
  ticketId: z.string().optional(),
  path: NonBlank,
  state: z
    .enum(['pending', 'merged', 'conflicted', 'refused', 'not-merged'])
    .describe('pending: not merged yet; conflicted: some files left for the user; refused: the user denied the merge; not-merged: the workflow ended without merging it'),
});
export type WorkflowWorktreeView = z.infer<typeof WorkflowWorktreeView>;

export const WorkflowView = z.object({
  workflowId: Id,
  kind: z.enum(['phases', 'steps']),
  goal: z.string(),
  projectRoot: z.string(),
  status: WorkflowStatus,
  phases: z.array(WorkflowPhaseView),
  pendingApproval: PendingApproval.nullable(),
  summary: z.string().nullable(),
  failure: z.object({ code: ErrorCode, reason: z.string() }).nullable(),
  /** A stopped workflow: the collector that stopped it, in which phase, and why. */
  halt: z.object({ phase: NonBlank, agentId: NonBlank, reason: z.string() }).nullable().default(null),
  eventCount: z.number().int().min(0),
  worktrees: z.array(WorkflowWorktreeView).default([]),
  /** Files a merge left as the user has them, and where the ticket's version is kept. */
  conflicts: z
    .array(z.object({ path: NonBlank, agentIds: z.array(NonBlank), reason: z.string().optional(), kept: z.string().optional() }))
    .default([]),
});
export type WorkflowView = z.infer<typeof WorkflowView>;

/** `workflow.cancel`: no agent is dispatched any more and the running ones are cancelled (`run.cancel`, by `workflow`). */
export const WorkflowCancelRequest = z.strictObject({
  workflowId: Id,
  by: CancelledBy.default('cli'),
  reason: z.string().trim().max(500).default(''),
});
export type WorkflowCancelRequest = z.infer<typeof WorkflowCancelRequest>;
/** `cancelled`: this request cancelled it; `ended`: it had ended already (`status` says how), and nothing was appended. */
export const WorkflowCancelReply = z.object({
  workflowId: Id,
  outcome: z.enum(['cancelled', 'ended']),
  status: WorkflowStatus,
  /** The agent runs this cancellation stopped. */
  cancelledRuns: z.array(RunId),
});
export type WorkflowCancelReply = z.infer<typeof WorkflowCancelReply>;

export const WorkflowGetRequest = z.object({ workflowId: Id });
export type WorkflowGetRequest = z.infer<typeof WorkflowGetRequest>;
export const WorkflowGetReply = WorkflowView;
export type WorkflowGetReply = z.infer<typeof WorkflowGetReply>;

/** Where a ticket agent works: its own copy of the project, merged back by the workflow. */
export const Worktree = z.object({ path: NonBlank, method: z.enum(['git-worktree', 'copy']), base: z.string().optional() });
export type Worktree = z.infer<typeof Worktree>;

/** What an agent run of a workflow carries in its `RunStarted`: who it is and what it builds on. */
export const AgentBrief = z.object({
  workflowId: Id,
  agentId: NonBlank,
  agentType: NonBlank,
  role: AgentRole,
  phase: NonBlank,
  contextId: ContextIdString,
  attempt: z.number().int().min(1),
  upstream: z.array(UpstreamContext).default([]),
  previousAttempt: PreviousAttempt.optional(),
});
export type AgentBrief = z.infer<typeof AgentBrief>;


/** The agent type of a phase's role: `discovery-orchestrator`, `planning-agent`, `ticket-collector`, … */
export const phaseAgentType = (phase: PhaseName, role: Exclude<AgentRole, 'step'>): string =>
  `${phase === 'tickets' ? 'ticket' : phase}-${role}`;
/** Every step of a seed-004 workflow runs as this agent type. */
export const STEP_AGENT_TYPE = 'workflow-step';
export const WORKFLOW_AGENT_TYPES: readonly string[] = [
  ...PHASES.flatMap((phase) => (['orchestrator', 'agent', 'collector'] as const).map((role) => phaseAgentType(phase, role))),
  STEP_AGENT_TYPE,
];
