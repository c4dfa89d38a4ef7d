import { EventData, RunEventType, StagecraftError } from '@stagecraft/contracts';
import { evolveRun } from './evolve';
import { PendingEvent, pending } from './pending-event';
import { InStage, RunState, Running, inStage } from './state';

/** Events being decided, and the state they lead to: every rule reads the state as of the last event. */
export class Batch {
  readonly events: PendingEvent[] = [];
  constructor(public state: RunState) {}

  add<T extends RunEventType>(type: T, data: EventData<T>): this {
    const event = pending(type, data);
    this.events.push(event);
    this.state = evolveRun(this.state, event);
    return this;
  }

  get running(): Running {
    if (this.state.status !== 'running') throw new StagecraftError('INTERNAL', `the run is ${this.state.status}, not running`);
    return this.state;
  }

  get inStage(): InStage {
    const state = this.state;
    if (!inStage(state)) throw new StagecraftError('INTERNAL', 'the run has not entered a stage');
    return state;
  }
}
