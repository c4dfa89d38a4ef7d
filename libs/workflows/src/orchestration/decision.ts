import { ErrorCode, EventData } from '@stagecraft/contracts';
import { Decision } from '@stagecraft/decider';
import { WorkflowPendingEvent, evolveStarted } from './evolve';
import { StartedWorkflow, isLive } from './state';

/**
 * The kit's `Decision` over a started workflow, and when its input happened: each event is folded as
 * if recorded then, so a rule that runs after another reads the state as of the last event.
 */
export class WorkflowDecision extends Decision<StartedWorkflow, WorkflowPendingEvent> {
  constructor(
    state: StartedWorkflow,
    /** The input's time: context ids carry it, and the fold records it as the events' time. */
    readonly at: string,
  ) {
    super(state, (s, event) => evolveStarted(s, { ...event, metadata: { occurredAt: at } }));
  }

  emit<T extends WorkflowPendingEvent['type']>(type: T, data: EventData<T>): this {
    return this.add({ type, data } as WorkflowPendingEvent);
  }
}

/** Ends a workflow that is still going on; one that has ended stays as it ended. */
export function failWorkflow(d: WorkflowDecision, code: ErrorCode, reason: string): void {
  if (isLive(d.state)) d.emit('WorkflowFailed', { code, reason });
}
