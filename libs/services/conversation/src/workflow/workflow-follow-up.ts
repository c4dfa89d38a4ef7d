import { StagecraftEvent, runEvents, runOfStream, streams, toErrorReply } from '@stagecraft/contracts';
import type { Processor, RecordedEvent } from '@stagecraft/event-store';
import { readEvents } from '@stagecraft/event-store';
import { isLive, workflowEffects, worktreesOf } from '@stagecraft/workflows';
import { DriverPorts } from '../driver-ports';
import type { RunRegistry } from '../run-registry';
import { ensureAgentRun } from './agent-runs';
import { WorkflowLog } from './workflow-log';
import { applyResolutions, mergeWorktrees } from './merge-back';
import { cancelAgentRuns } from './cancel-agent-runs';
import { removeMergedWorktrees } from './worktrees';

export const WORKFLOW_FOLLOW_UP = 'conversation-workflow-follow-up';
const WORKFLOW_STREAM = streams.workflow('');
const RUN_STREAM = streams.run('');

/**
 * What follows each commit of a workflow, read from the log: the runs its dispatches name are started
 * and driven, the ticket agents' copies are merged back, and an agent's finished run is reported to
 * its workflow. Every effect is idempotent (runs by their fixed ids, merges by content, reports by
 * the decider ignoring a run it heard of), so a restart that repeats events repeats nothing.
 */
export function workflowFollowUp(ports: DriverPorts, registry: RunRegistry): Processor {
  return {
    name: WORKFLOW_FOLLOW_UP,
    handles: (event) =>
      event.streamId.startsWith(WORKFLOW_STREAM) ||
      (event.streamId.startsWith(RUN_STREAM) &&
        (event.type === 'RunCompleted' || event.type === 'RunFailed' || event.type === 'RunCancelled')),
    async handle(recorded) {
      if (recorded.streamId.startsWith(WORKFLOW_STREAM))
        await followWorkflow(ports, registry, recorded.streamId.slice(WORKFLOW_STREAM.length));
      else await reportRun(ports, recorded as RecordedEvent & StagecraftEvent);
    },
  };
}

async function followWorkflow(ports: DriverPorts, registry: RunRegistry, workflowId: string): Promise<void> {
  const log = await WorkflowLog.open(ports, workflowId);
  const state = log.state;
  if (state.status === 'new') return;
  if (state.status === 'cancelled') {
    // Again here: a run started while the cancellation was being appended is stopped too.
    await cancelAgentRuns(ports, state);
  }
  await runEffects(ports, registry, log);
  const after = log.state;
  if (after.status !== 'new' && !isLive(after)) {
    // Only copies merged without a conflict go; the others hold work the user has not got yet.
    const worktrees = worktreesOf(after);
    await removeMergedWorktrees(
      after.start.projectRoot,
      workflowId,
      worktrees.filter((w) => w.state === 'merged').map((w) => w.path),
    );
    const kept = worktrees.filter((w) => w.state !== 'merged');
    if (kept.length > 0) ports.logger.info({ workflowId, kept: kept.map((w) => `${w.path} (${w.state})`) }, 'ticket copies kept');
  }
}

/** The I/O the workflow waits for (once it has ended, only applying its collector's resolutions). */
async function runEffects(ports: DriverPorts, registry: RunRegistry, log: WorkflowLog): Promise<void> {
  const { workflowId } = log;
  const state = log.state;
  if (state.status === 'new') return;
  for (const effect of workflowEffects(state)) {
    if (effect.kind === 'run_agent') {
      try {
        await ensureAgentRun(ports, registry, state.start, effect.run);
      } catch (error) {
        const fault = toErrorReply(error);
        // The run could not even start: the workflow hears it as that agent failing.
        ports.logger.error({ workflowId, runId: effect.run.runId, err: fault.message }, 'workflow agent could not start');
        if (fault.code === 'CONFLICT') continue;
        await log.decide({
          type: 'AgentFinished',
          runId: effect.run.runId,
          outcome: 'failed',
          answer: '',
          failure: { code: fault.code, reason: fault.message },
          at: now(ports),
        });
      }
    } else if (effect.kind === 'merge') {
      const agents = effect.agents.flatMap((run) => (run.worktree ? [{ agentId: run.agentId, worktree: run.worktree }] : []));
      let result: Awaited<ReturnType<typeof mergeWorktrees>>;
      try {
        result = await mergeWorktrees(state.start.projectRoot, agents);
      } catch (error) {
        // The merge could not run: the workflow ends there, its copies kept and listed (nothing is lost).
        const fault = toErrorReply(error);
        ports.logger.error({ workflowId, err: fault.message }, 'ticket changes could not be merged');
        await log.decide({
          type: 'WorkflowStopped',
          fault: { code: fault.code, message: `the ticket changes could not be merged: ${fault.message}` },
          at: now(ports),
        });
        continue;
      }
      ports.logger.info({ workflowId, merged: result.merged.length, conflicts: result.conflicts.length }, 'ticket changes merged');
      const snapshotId = state.start.snapshot?.id;
      await log.decide({ type: 'WorktreesMerged', ...result, ...(snapshotId ? { snapshotId } : {}), at: now(ports) });
    } else {
      const result = await applyResolutions(state.start.projectRoot, effect.resolutions);
      ports.logger.info({ workflowId, resolved: result.resolved.length, unresolved: result.unresolved.length }, 'merge conflicts resolved');
      await log.decide({ type: 'ConflictsResolved', phase: effect.phase, round: effect.round, ...result, at: now(ports) });
    }
  }
}

/** A finished run that is a workflow's agent is reported to that workflow. */
async function reportRun(ports: DriverPorts, event: RecordedEvent & StagecraftEvent): Promise<void> {
  const runId = runOfStream(event.streamId);
  if (runId === undefined) return;
  const [first] = await readEvents(ports.store, streams.run(runId), runEvents, { fromRevision: 0n, maxCount: 1 });
  const agent = first?.type === 'RunStarted' ? first.data.agent : undefined;
  if (agent === undefined) return;
  const log = await WorkflowLog.open(ports, agent.workflowId);
  if (event.type === 'RunCompleted')
    await log.decide({ type: 'AgentFinished', runId, outcome: 'completed', answer: event.data.answer, at: now(ports) }, event.id);
  else if (event.type === 'RunCancelled')
    // One agent stopped on its own (`runs cancel`): the workflow hears it as that agent failing, and decides.
    await log.decide(
      {
        type: 'AgentFinished',
        runId,
        outcome: 'failed',
        answer: '',
        failure: {
          code: 'UNAVAILABLE',
          reason: `the run was cancelled by ${event.data.by}${event.data.reason ? `: ${event.data.reason}` : ''}`,
        },
        at: now(ports),
      },
      event.id,
    );
  else if (event.type === 'RunFailed')
    await log.decide(
      {
        type: 'AgentFinished',
        runId,
        outcome: 'failed',
        answer: '',
        failure: { code: event.data.code, reason: event.data.reason },
        at: now(ports),
      },
      event.id,
    );
}

const now = (ports: DriverPorts) => ports.clock().toISOString();
