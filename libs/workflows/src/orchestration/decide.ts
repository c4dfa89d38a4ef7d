import { StagecraftError } from '@stagecraft/contracts';
import type { Decider } from '@stagecraft/decider';
import { agentFinished } from './agent-finished';
import { approvalAnswered } from './approvals';
import { WorkflowDecision } from './decision';
import { WorkflowPendingEvent, evolveWorkflow } from './evolve';
import { WorkflowInput } from './inputs';
import { conflictsResolved, worktreesMerged } from './merge';
import { startWorkflow } from './phases';
import { WorkflowState, initialWorkflowState, isLive } from './state';

/** Decides what an input means for a workflow: the events to append (maybe none). Pure. */
function decide(input: WorkflowInput, state: WorkflowState): WorkflowPendingEvent[] {
  if (input.type === 'WorkflowRequested') {
    if (state.status !== 'new') throw new StagecraftError('CONFLICT', `workflow ${input.workflowId} already exists`);
    return startWorkflow(input);
  }
  if (state.status === 'new') {
    // Stopping, cancelling or merging a workflow that never started changes nothing; a report about it is a bug.
    if (input.type === 'WorkflowStopped' || input.type === 'WorkflowCancelRequested' || input.type === 'WorktreesMerged') return [];
    throw new StagecraftError('INTERNAL', 'the workflow has not started');
  }
  const d = new WorkflowDecision(state, input.at);
  switch (input.type) {
    case 'AgentFinished':
      agentFinished(d, input);
      break;
    case 'WorktreesMerged':
      worktreesMerged(d, input);
      break;
    case 'ConflictsResolved':
      conflictsResolved(d, input);
      break;
    case 'ApprovalAnswered':
      approvalAnswered(d, input);
      break;
    case 'WorkflowStopped':
      if (isLive(state)) d.emit('WorkflowFailed', { code: input.fault.code, reason: input.fault.message });
      break;
    case 'WorkflowCancelRequested':
      // A workflow that has ended is left as it ended: nothing is appended.
      if (isLive(state)) d.emit('WorkflowCancelled', { by: input.by, reason: input.reason });
      break;
    default: {
      const unreachable: never = input;
      throw new StagecraftError('INTERNAL', `unknown workflow input ${JSON.stringify(unreachable)}`);
    }
  }
  return d.events;
}

/**
 * The workflow over its stream `workflow-<id>`: what each input (a request, an agent's end, the shell's
 * merge, a person's answer) means, as events. Its time is the input's `at`; folded from the log, an
 * event's time is its recorded `occurredAt`.
 */
export const workflowDecider: Decider<WorkflowState, WorkflowInput, WorkflowPendingEvent> = {
  initialState: initialWorkflowState,
  evolve: evolveWorkflow,
  decide,
};
