import { streams, workflowEvents } from '@stagecraft/contracts';
import { appendDecided, readEvents } from '@stagecraft/event-store';
import { WorkflowInput, WorkflowPendingEvent, WorkflowState, workflowDecider } from '@stagecraft/workflows';
import { DriverPorts } from '../driver-ports';

/** One workflow's stream as this process sees it: the folded state, its revision, and the only way to add to it. */
export class WorkflowLog {
  private constructor(
    private readonly ports: Pick<DriverPorts, 'store' | 'clock' | 'newId'>,
    readonly workflowId: string,
    private folded: WorkflowState,
    private revision: bigint | null,
  ) {}

  static async open(ports: Pick<DriverPorts, 'store' | 'clock' | 'newId'>, workflowId: string): Promise<WorkflowLog> {
    const events = await readEvents(ports.store, streams.workflow(workflowId), workflowEvents);
    const state = events.reduce(workflowDecider.evolve, workflowDecider.initialState());
    return new WorkflowLog(ports, workflowId, state, events.at(-1)?.revision ?? null);
  }

  get state(): WorkflowState {
    return this.folded;
  }

  /** Decides on one input and appends what the decider chose as one commit (validated, at the revision read); returns the events. */
  async decide(input: WorkflowInput, causationId?: string): Promise<readonly WorkflowPendingEvent[]> {
    const events = workflowDecider.decide(input, this.folded);
    if (events.length === 0) return events;
    const occurredAt = this.ports.clock().toISOString();
    const metadata = { correlationId: this.workflowId, ...(causationId ? { causationId } : {}), occurredAt };
    this.revision = await appendDecided(this.ports.store, streams.workflow(this.workflowId), events, {
      what: `workflow ${this.workflowId}`,
      expectedRevision: this.revision ?? 'no_stream',
      newId: () => this.ports.newId(),
      metadata: () => ({ ...metadata }),
    });
    // Folded as a read would fold them, with the time they were recorded at.
    this.folded = events.reduce((state, event) => workflowDecider.evolve(state, { ...event, metadata }), this.folded);
    return events;
  }
}
