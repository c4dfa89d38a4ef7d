import { EventData, EventType, StagecraftError, eventDataSchemas, issuesFromZod, streams, workflowEvents } from '@stagecraft/contracts';
import { ConcurrencyError, readEvents } from '@stagecraft/event-store';
import { WorkflowInput, WorkflowPendingEvent, WorkflowState, decideWorkflow, evolveWorkflow, foldWorkflow } from '@stagecraft/workflows';
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
    return new WorkflowLog(ports, workflowId, foldWorkflow(events), events.at(-1)?.revision ?? null);
  }

  get state(): WorkflowState {
    return this.folded;
  }

  /** Decides on one input and appends what the decider chose as one commit; returns the events. */
  async decide(input: WorkflowInput, causationId?: string): Promise<readonly WorkflowPendingEvent[]> {
    const events = decideWorkflow(this.folded, input);
    await this.append(events, causationId);
    return events;
  }

  private async append(events: readonly WorkflowPendingEvent[], causationId?: string): Promise<void> {
    if (events.length === 0) return;
    const occurredAt = this.ports.clock().toISOString();
    const stored = events.map((e) => ({
      id: this.ports.newId(),
      type: e.type,
      data: validate(e.type, e.data),
      metadata: { correlationId: this.workflowId, ...(causationId ? { causationId } : {}), occurredAt },
    }));
    try {
      const result = await this.ports.store.appendToStream(streams.workflow(this.workflowId), stored, {
        expectedRevision: this.revision ?? 'no_stream',
      });
      this.revision = result.nextExpectedRevision;
    } catch (error) {
      if (error instanceof ConcurrencyError)
        throw new StagecraftError('CONFLICT', `workflow ${this.workflowId} was changed by another writer`, [], { cause: error });
      throw error;
    }
    this.folded = events.reduce((state, event) => evolveWorkflow(state, event, occurredAt), this.folded);
  }
}

function validate<T extends EventType>(type: T, data: unknown): EventData<T> {
  const parsed = eventDataSchemas[type].safeParse(data);
  if (!parsed.success) throw new StagecraftError('INTERNAL', `the workflow produced an invalid ${type} event`, issuesFromZod(parsed.error));
  return parsed.data as EventData<T>;
}
