import { Decision } from '@stagecraft/decider';
import { EventData, RunEventType, StagecraftError } from '@stagecraft/contracts';
import { evolveRun } from './evolve';
import { PendingEvent, pending } from './pending-event';
import { InStage, RunState, Running, inStage } from './state';

/** The kit's decision over a run: every rule reads the state as of the last event it added. */
export class RunDecision extends Decision<RunState, PendingEvent> {
  constructor(state: RunState) {
    super(state, evolveRun);
  }

  override add(event: PendingEvent): this;
  override add<T extends RunEventType>(type: T, data: EventData<T>): this;
  override add(event: PendingEvent | RunEventType, data?: unknown): this {
    return super.add(typeof event === 'string' ? pending(event, data as never) : event);
  }
}

/** The run as a rule that acts on a running run needs it; an input that reaches another status is a bug of the shell. */
export function expectRunning(state: RunState): Running {
  if (state.status !== 'running') throw new StagecraftError('INTERNAL', `the run is ${state.status}, not running`);
  return state;
}

/** The run as a rule that acts inside a stage needs it. */
export function expectInStage(state: RunState): InStage {
  if (!inStage(state)) throw new StagecraftError('INTERNAL', 'the run has not entered a stage');
  return state;
}
