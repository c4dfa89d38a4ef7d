import { AgentBrief, NO_DELEGATION } from '@stagecraft/contracts';
import { AgentRun, WorkflowStart } from '@stagecraft/workflows';
import { DriverPorts } from '../driver-ports';
import { decideAndAppend } from '../effects';
import { RunKnowledge } from '../knowledge';
import { RunLog } from '../run-log';
import type { RunRegistry } from '../run-registry';
import { prepareWorktree } from './worktrees';

const briefOf = (workflowId: string, run: AgentRun): AgentBrief => ({
  workflowId,
  agentId: run.agentId,
  agentType: run.agentType,
  role: run.role,
  phase: run.phase,
  contextId: run.contextId,
  attempt: run.attempt,
  upstream: [...run.upstream],
  ...(run.previousAttempt ? { previousAttempt: run.previousAttempt } : {}),
});

/**
 * Makes sure a dispatched agent's run exists and is driven. Its run id was fixed by the dispatch, so
 * this is idempotent: a run already started is only driven on (a no-op when this process drives it).
 * Each agent is its own conversation: it sees its upstream context, never another agent's turns.
 */
export async function ensureAgentRun(ports: DriverPorts, registry: RunRegistry, start: WorkflowStart, run: AgentRun): Promise<void> {
  const log = await RunLog.open(ports, run.runId, start.workflowId);
  if (log.state.status === 'running') {
    void registry.drive(log);
    return;
  }
  if (log.state.status !== 'new') return;
  if (run.worktree) await prepareWorktree(start.projectRoot, run.worktree);
  const knowledge = new RunKnowledge(ports);
  await knowledge.fetch({
    kind: 'policies',
    request: { userMode: 'agent', reasoningEnabled: start.reasoningEnabled, delegation: NO_DELEGATION, workflowAgentType: run.agentType },
  });
  await decideAndAppend(
    ports,
    log,
    {
      type: 'RunRequested',
      runId: run.runId,
      conversationId: run.runId,
      userMode: 'agent',
      reasoningEnabled: start.reasoningEnabled,
      message: run.assignedGoal,
      projectRoot: run.worktree?.path ?? start.projectRoot,
      compaction: ports.compaction ?? undefined,
      limits: ports.limits,
      approve: start.approve,
      agent: briefOf(start.workflowId, run),
      at: ports.clock().toISOString(),
    },
    knowledge,
  );
  void registry.drive(log, knowledge);
}
