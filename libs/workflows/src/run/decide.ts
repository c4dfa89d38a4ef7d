import {
  ConsolidationTemplate,
  DEFAULT_WORKFLOW_LIMITS,
  DiscoveryCollectorResult,
  PlanningCollectorResult,
  ErrorCode,
  EventData,
  PHASES,
  PreviousAttempt,
  STEP_AGENT_TYPE,
  StagecraftError,
  UpstreamContext,
  WorkflowEvent,
  phaseAgentType,
  PhaseName,
} from '@stagecraft/contracts';
import { formatContextId, nextSequence } from '@stagecraft/contracts';
import { upstreamId } from '../contributors/describe-upstream';
import { composeStepPrompt } from '../compose';
import { parseAgentDocument } from './documents';
import { WorkflowPendingEvent, evolveWorkflow } from './evolve';
import { WorkflowInput } from './inputs';
import {
  AgentRun,
  PhaseEntry,
  QueuedAgent,
  StartedWorkflow,
  WorkflowState,
  agentRun,
  currentEntry,
  gateId,
  isWorking,
  mergeWaiting,
} from './state';
import { ticketFor, upstreamFor } from './upstream';

type WorkflowEventType = WorkflowEvent['type'];

/** Events being decided and the state they lead to: every rule reads the state as of the last event. */
class Batch {
  readonly events: WorkflowPendingEvent[] = [];
  constructor(
    public state: WorkflowState,
    readonly at: string,
  ) {}

  add<T extends WorkflowEventType>(type: T, data: EventData<T>): this {
    const event = { type, data } as WorkflowPendingEvent;
    this.events.push(event);
    this.state = evolveWorkflow(this.state, event, this.at);
    return this;
  }

  get started(): StartedWorkflow {
    if (this.state.status === 'new') throw new StagecraftError('INTERNAL', 'the workflow has not started');
    return this.state;
  }

  get live(): boolean {
    return this.state.status === 'running' || this.state.status === 'waiting';
  }

  get entry(): PhaseEntry {
    const entry = currentEntry(this.started);
    if (entry === null) throw new StagecraftError('INTERNAL', 'the workflow has entered no phase');
    return entry;
  }
}

const MAX_OUTPUT = 200_000;
const capped = (text: string): string => (text.length <= MAX_OUTPUT ? text : `${text.slice(0, MAX_OUTPUT - 20)}\n[… cut]`);

/** Decides what an input means for a workflow: the events to append (maybe none). Pure. */
export function decideWorkflow(state: WorkflowState, input: WorkflowInput): WorkflowPendingEvent[] {
  const b = new Batch(state, input.at);
  switch (input.type) {
    case 'WorkflowRequested':
      if (state.status !== 'new') throw new StagecraftError('CONFLICT', `workflow ${input.workflowId} already exists`);
      start(b, input);
      break;
    case 'AgentFinished':
      agentFinished(b, input);
      break;
    case 'WorktreesMerged':
      merged(b, input);
      break;
    case 'ApprovalAnswered':
      approvalAnswered(b, input);
      break;
    case 'WorkflowStopped':
      if (b.live) b.add('WorkflowFailed', { code: input.fault.code, reason: input.fault.message });
      break;
    case 'ConflictsResolved': {
      // Reported once per collector decision; also after the workflow ended, since it was decided before.
      const entry = b.started.entries.find((e) => e.phase === input.phase && e.round === input.round);
      if (entry === undefined || (entry.merge.resolving ?? []).length === 0) break;
      b.add('ConflictsResolved', { phase: input.phase, round: input.round, resolved: input.resolved, unresolved: input.unresolved });
      break;
    }
    case 'WorkflowCancelRequested':
      // A workflow that has ended is left as it ended: nothing is appended.
      if (b.live) b.add('WorkflowCancelled', { by: input.by, reason: input.reason });
      break;
    default: {
      const unreachable: never = input;
      throw new StagecraftError('INTERNAL', `unknown workflow input ${JSON.stringify(unreachable)}`);
    }
  }
  return b.events;
}

function start(b: Batch, input: Extract<WorkflowInput, { type: 'WorkflowRequested' }>): void {
  const { request, workflowId, at } = input;
  const rootContextId = formatContextId({ workflowRunId: workflowId, agentType: 'workflow', sequence: 1, timestamp: at });
  b.add('WorkflowStarted', {
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
  });
  if (input.steps) startStep(b, 0);
  else startPhase(b, request.phases[0]);
}

// ---- dispatch ---------------------------------------------------------------------------------

interface DispatchSpec {
  agentId: string;
  role: AgentRun['role'];
  agentType: string;
  assignedGoal: string;
  upstream: UpstreamContext[];
  previousAttempt?: PreviousAttempt;
}

function dispatch(b: Batch, spec: DispatchSpec): boolean {
  const { at } = b;
  const s = b.started;
  if (s.dispatched >= s.start.limits.maxAgents) {
    fail(b, 'LIMIT_EXCEEDED', `the workflow would dispatch more than maxAgents (${s.start.limits.maxAgents}) agents`);
    return false;
  }
  const { workflowId, projectRoot } = s.start;
  const entry = b.entry;
  // Attempts count across the entries of a phase, so a phase entered again goes on numbering.
  const prior = Object.values(s.runs)
    .filter((r) => r.agentId === spec.agentId && r.phase === entry.phase)
    .at(-1);
  const attempt = prior ? prior.attempt + 1 : 1;
  const { sequence } = nextSequence(s.sequences, workflowId, spec.agentType);
  const contextId = formatContextId({ workflowRunId: workflowId, agentType: spec.agentType, sequence, timestamp: at });
  const runId = `${workflowId.slice(0, 100)}.${s.dispatched + 1}`;
  const isolated = spec.role === 'agent' && entry.phase === 'tickets';
  b.add('AgentDispatched', {
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
function previousAttemptOf(run: AgentRun, why?: string): PreviousAttempt {
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

function startPhase(b: Batch, phase: PhaseName, previous?: PreviousAttempt): void {
  const s = b.started;
  const round = s.entries.filter((e) => e.phase === phase).length + 1;
  b.add('PhaseStarted', { phase, round });
  const agentType = phaseAgentType(phase, 'orchestrator');
  dispatch(b, {
    agentId: agentType,
    role: 'orchestrator',
    agentType,
    assignedGoal: `Plan the ${phase} phase of this goal and delegate it: ${s.start.goal}`,
    upstream: upstreamFor(b.started, b.entry, agentType),
    ...(previous ? { previousAttempt: previous } : {}),
  });
}

function startStep(b: Batch, index: number): void {
  const s = b.started;
  const steps = s.start.steps?.steps ?? [];
  const step = steps[index];
  b.add('PhaseStarted', { phase: step.id, round: 1 });
  // Each step builds on the answers of the steps before it.
  const upstream: UpstreamContext[] = s.entries.flatMap((entry) => {
    const run = entry.orchestrator === null ? undefined : agentRun(s, entry, entry.orchestrator);
    return run?.status === 'completed'
      ? [{ kind: 'result' as const, resultId: run.contextId, agentType: STEP_AGENT_TYPE, output: run.output || '(no answer)' }]
      : [];
  });
  dispatch(b, {
    agentId: step.id,
    role: 'step',
    agentType: STEP_AGENT_TYPE,
    assignedGoal: `${composeStepPrompt(step)}\n\nGoal: ${s.start.goal}`,
    upstream,
  });
}

function fail(b: Batch, code: ErrorCode, reason: string): void {
  if (b.live) b.add('WorkflowFailed', { code, reason });
}

// ---- agents return ----------------------------------------------------------------------------

const PHASE_ORDER: readonly string[] = PHASES;

/** The context an agent's document names as its upstream: its first upstream context with an id, else the goal's. */
function upstreamContextIdOf(s: StartedWorkflow, run: AgentRun): string {
  for (const u of run.upstream) if (u.kind !== 'goal' && u.kind !== 'merge-conflicts') return upstreamId(u);
  return s.start.rootContextId;
}

/** Checks a collector's decision against the workflow: the agents it reruns and the phase it routes back to exist. */
function decisionIssues(s: StartedWorkflow, entry: PhaseEntry, decision: ConsolidationTemplate['decision']): string[] {
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

function agentFinished(b: Batch, input: Extract<WorkflowInput, { type: 'AgentFinished' }>): void {
  const s = b.started;
  const run = s.runs[input.runId];
  // A second report of the same run (a restart re-reads the log) changes nothing.
  if (run === undefined || run.status !== 'dispatched' || !b.live) return;
  const entry = b.entry;
  if (input.outcome === 'failed') {
    const reason = input.failure?.reason ?? 'the run failed';
    b.add('AgentReturned', {
      agentId: run.agentId,
      runId: run.runId,
      contextId: run.contextId,
      outcome: 'failed',
      output: capped(reason),
      error: { message: reason, issues: [] },
    });
  } else {
    const parsed = parseAgentDocument(run.agentType, input.answer, {
      resultId: run.contextId,
      upstreamContextId: upstreamContextIdOf(s, run),
    });
    const issues =
      parsed.ok && run.role === 'collector' ? decisionIssues(s, entry, (parsed.document as ConsolidationTemplate).decision) : [];
    if (parsed.ok && issues.length === 0)
      b.add('AgentReturned', {
        agentId: run.agentId,
        runId: run.runId,
        contextId: run.contextId,
        outcome: 'completed',
        output: capped(input.answer),
        ...(parsed.document === undefined ? {} : { result: parsed.document }),
      });
    else
      b.add('AgentReturned', {
        agentId: run.agentId,
        runId: run.runId,
        contextId: run.contextId,
        outcome: 'invalid',
        output: capped(input.answer),
        error: parsed.ok
          ? { message: 'the decision does not fit this workflow', issues }
          : { message: parsed.message, issues: parsed.issues },
      });
  }
  const returned = b.started.runs[run.runId];
  if (returned.status !== 'completed') {
    retryOrGiveUp(b, returned);
    return;
  }
  switch (returned.role) {
    case 'step':
      return stepDone(b);
    case 'collector':
      return consolidate(b, returned);
    default:
      return followUp(b);
  }
}

/** An agent that failed or answered out of format is asked again with its attempt, a bounded number of times. */
function retryOrGiveUp(b: Batch, run: AgentRun): void {
  const s = b.started;
  const entry = b.entry;
  const tries = Object.values(s.runs).filter(
    (r) =>
      r.agentId === run.agentId && r.phase === entry.phase && r.round === entry.round && (r.status === 'invalid' || r.status === 'failed'),
  ).length;
  if (tries <= s.start.limits.maxFormatCorrections) {
    const correction =
      run.status === 'invalid'
        ? 'Answer again with one ```json block holding the document your role describes, fixing the issues listed.'
        : undefined;
    dispatch(b, { ...specOf(run), previousAttempt: previousAttemptOf(run, correction) });
    return;
  }
  if (run.role === 'agent') {
    // The collector hears that this agent could not do its part, and decides.
    followUp(b);
    return;
  }
  const code: ErrorCode = run.status === 'invalid' ? 'MODEL_FORMAT' : 'INTERNAL';
  fail(b, code, `${run.agentType} ${run.agentId} gave no usable answer after ${tries} attempts: ${run.error?.message ?? 'failed'}`);
}

const specOf = (run: AgentRun): DispatchSpec => ({
  agentId: run.agentId,
  role: run.role,
  agentType: run.agentType,
  assignedGoal: run.assignedGoal,
  upstream: [...run.upstream],
});

/** Moves a phase on: dispatches waiting work agents within the parallel limit, then merges and collects. */
function followUp(b: Batch): void {
  if (b.state.status !== 'running') return;
  const s = b.started;
  const entry = b.entry;
  if (entry.status !== 'running' || entry.orchestrator === null) return;
  const orchestrator = agentRun(s, entry, entry.orchestrator);
  if (orchestrator?.status !== 'completed') return;
  if (entry.workAgents.length === 0 && entry.queue.length > s.start.limits.maxAgentsPerPhase) {
    fail(
      b,
      'LIMIT_EXCEEDED',
      `the ${entry.phase} orchestrator asked for ${entry.queue.length} agents; maxAgentsPerPhase is ${s.start.limits.maxAgentsPerPhase}`,
    );
    return;
  }
  const workType = phaseAgentType(entry.phase as PhaseName, 'agent');
  for (;;) {
    const now = b.entry;
    const working = now.workAgents.filter((id) => isWorking(b.started, now, id)).length;
    const next: QueuedAgent | undefined = now.queue[0];
    if (next === undefined || working >= b.started.start.limits.maxParallelAgents || !b.live) break;
    const prior = agentRun(b.started, now, next.agentId);
    const ticket = workType === 'ticket-agent' ? ticketFor(b.started, next.ticketId, next.index) : undefined;
    const rationale =
      now.decision?.decisionType === 'RERUN' ? `The ${now.phase} collector asked for this again: ${now.decision.rationale}` : undefined;
    if (
      !dispatch(b, {
        agentId: next.agentId,
        role: 'agent',
        agentType: workType,
        assignedGoal: next.assignedGoal,
        upstream: prior ? [...prior.upstream] : upstreamFor(b.started, now, workType, ticket),
        ...(prior ? { previousAttempt: previousAttemptOf(prior, rationale) } : {}),
      })
    )
      return;
  }
  const now = b.entry;
  if (mergeWaiting(b.started, now)) {
    const gate = gateId(b.started, now, 'before_merge');
    if (b.started.start.gates.beforeMerge && b.started.answered[gate] === undefined)
      b.add('ApprovalRequested', { approvalId: gate, kind: 'before_merge', summary: mergeSummary(b.started, now) });
    // Otherwise the shell merges the copies back (`mergeDue`), then the collector is dispatched.
    return;
  }
  if (now.queue.length > 0 || now.workAgents.some((id) => isWorking(b.started, now, id)) || now.collector !== null) return;
  dispatchCollector(b);
}

function mergeSummary(s: StartedWorkflow, entry: PhaseEntry): string {
  const done = entry.workAgents.filter((id) => agentRun(s, entry, id)?.status === 'completed');
  return `merge the changes of ${done.length} ticket agent(s) (${done.join(', ') || 'none'}) into ${s.start.projectRoot}`;
}

function dispatchCollector(b: Batch): void {
  const entry = b.entry;
  const agentType = phaseAgentType(entry.phase as PhaseName, 'collector');
  const prior = agentRun(b.started, entry, agentType);
  dispatch(b, {
    agentId: agentType,
    role: 'collector',
    agentType,
    assignedGoal: `Consolidate the ${entry.phase} phase of this goal and decide what happens next: ${b.started.start.goal}`,
    upstream: upstreamFor(b.started, entry, agentType),
    ...(prior ? { previousAttempt: previousAttemptOf(prior, 'Consolidate again: some agents were run again since.') } : {}),
  });
}

function consolidate(b: Batch, run: AgentRun): void {
  const s = b.started;
  const entry = b.entry;
  const { decision } = run.result as ConsolidationTemplate;
  const { limits } = s.start;
  b.add('PhaseConsolidated', {
    phase: entry.phase,
    round: entry.round,
    agentId: run.agentId,
    decisionType: decision.decisionType,
    rationale: decision.rationale,
    rerunAgentIds: decision.decisionType === 'RERUN' ? decision.rerunAgentIds : [],
  });
  switch (decision.decisionType) {
    case 'ADVANCE':
      return advance(b);
    case 'RERUN':
      if (entry.reruns >= limits.maxReruns)
        return fail(b, 'LIMIT_EXCEEDED', `the ${entry.phase} collector asked for more than maxReruns (${limits.maxReruns}) reruns`);
      return followUp(b);
    case 'ROUTE_BACK': {
      const target = routeBackTarget(s, entry, decision.requestedPhase) as PhaseName;
      return routeBack(b, entry.phase, target, `the ${entry.phase} collector routed back: ${decision.rationale}`);
    }
    case 'STOP':
      b.add('WorkflowCompleted', { summary: `Stopped after ${entry.phase}: ${decision.rationale}` });
      return;
    default: {
      const unreachable: never = decision.decisionType;
      throw new StagecraftError('INTERNAL', `unknown collector decision ${String(unreachable)}`);
    }
  }
}

function routeBack(b: Batch, from: string, to: PhaseName, reason: string): void {
  const s = b.started;
  if (s.routeBacks >= s.start.limits.maxRouteBacks)
    return fail(
      b,
      'LIMIT_EXCEEDED',
      `${reason}; but the workflow has gone back maxRouteBacks (${s.start.limits.maxRouteBacks}) times already`,
    );
  b.add('PhaseRerouted', { from, to, reason });
  const last = [...b.started.entries].reverse().find((e) => e.phase === to);
  const orchestrator = last?.orchestrator ? agentRun(b.started, last, last.orchestrator) : undefined;
  // The orchestrator sees what it did before, why it is asked again, and what the later phases concluded.
  const later = PHASE_ORDER.slice(PHASE_ORDER.indexOf(to) + 1).flatMap((phase) => consolidatedContext(b.started, phase));
  const previous = orchestrator
    ? { ...previousAttemptOf(orchestrator, reason), priorContexts: [...orchestrator.upstream, ...later] }
    : undefined;
  startPhase(b, to, previous);
}

/** A phase's accepted consolidation as upstream context, typed by the phase. */
function consolidatedContext(s: StartedWorkflow, phase: string): UpstreamContext[] {
  const c = s.consolidated[phase];
  if (c === undefined) return [];
  if (phase === 'discovery') return [{ kind: 'discovery-collector', result: c.result as DiscoveryCollectorResult }];
  if (phase === 'planning') return [{ kind: 'planning-collector', result: c.result as PlanningCollectorResult }];
  return [{ kind: 'consolidation', template: c.result as ConsolidationTemplate }];
}

function advance(b: Batch): void {
  const s = b.started;
  const entry = b.entry;
  if (entry.phase === 'planning' && s.start.gates.afterPlanning) {
    const gate = gateId(s, entry, 'after_planning');
    if (s.answered[gate] === undefined) {
      const tickets =
        (s.consolidated['planning']?.result as { tickets?: { ticketId: string; title: string }[] } | undefined)?.tickets ?? [];
      b.add('ApprovalRequested', {
        approvalId: gate,
        kind: 'after_planning',
        summary: `start the tickets phase with ${tickets.length} ticket(s): ${tickets.map((t) => `${t.ticketId} ${t.title}`).join('; ') || 'none'}`,
      });
      return;
    }
  }
  const next = s.start.phases[s.start.phases.indexOf(entry.phase as PhaseName) + 1];
  if (next === undefined) {
    const c = s.consolidated[entry.phase]?.result as ConsolidationTemplate | undefined;
    b.add('WorkflowCompleted', { summary: c?.consolidatedOutput ?? `${entry.phase} consolidated` });
    return;
  }
  startPhase(b, next);
}

function stepDone(b: Batch): void {
  const s = b.started;
  const steps = s.start.steps?.steps ?? [];
  const index = steps.findIndex((step) => step.id === b.entry.phase);
  if (index + 1 < steps.length) return startStep(b, index + 1);
  const last = agentRun(s, b.entry, b.entry.orchestrator ?? '');
  b.add('WorkflowCompleted', { summary: last?.output ?? `${steps.length} steps done` });
}

// ---- the shell's reports ------------------------------------------------------------------------

function merged(b: Batch, input: Extract<WorkflowInput, { type: 'WorktreesMerged' }>): void {
  if (b.state.status !== 'running') return;
  const entry = b.entry;
  if (entry.phase !== 'tickets' || entry.merge.status !== 'none' || entry.collector !== null) return;
  b.add('WorktreesMerged', {
    phase: entry.phase,
    merged: input.merged,
    conflicts: input.conflicts,
    ...(input.snapshotId ? { snapshotId: input.snapshotId } : {}),
  });
  dispatchCollector(b);
}

function approvalAnswered(b: Batch, input: Extract<WorkflowInput, { type: 'ApprovalAnswered' }>): void {
  const s = b.started;
  const pending = s.pendingApproval;
  if (pending === null || s.status !== 'waiting')
    throw new StagecraftError('CONFLICT', `workflow ${s.start.workflowId} is not waiting for an approval`);
  if (input.approvalId !== undefined && input.approvalId !== pending.approvalId)
    throw new StagecraftError('CONFLICT', `approval ${input.approvalId} is not the one workflow ${s.start.workflowId} waits for`);
  if (input.decision === 'approve') {
    b.add('ApprovalGiven', { approvalId: pending.approvalId, ...(input.reason ? { note: input.reason } : {}) });
    if (pending.kind === 'after_planning') advance(b);
    else followUp(b);
    return;
  }
  const reason = input.reason ?? '';
  b.add('ApprovalDenied', { approvalId: pending.approvalId, reason });
  if (pending.kind === 'after_planning')
    routeBack(b, 'planning', 'planning', `the user did not approve the tickets${reason ? `: ${reason}` : ''}`);
  else dispatchCollector(b);
}
