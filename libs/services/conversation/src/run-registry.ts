import { EventOf, StagecraftEvent, streams, toErrorReply } from '@stagecraft/contracts';
import { catchUpProjection } from '@stagecraft/event-store';
import { activeRunsProjection } from './active-runs';
import { DriverPorts } from './driver-ports';
import { driveRun } from './run-driver';
import { RunLog } from './run-log';

/** The runs this process is driving; at start-up it resumes every run the log says is unfinished. */
export class RunRegistry {
  private readonly running = new Map<string, Promise<void>>();
  private closed = false;

  constructor(private readonly ports: DriverPorts) {}

  drive(log: RunLog): Promise<void> {
    const existing = this.running.get(log.runId);
    if (existing) return existing;
    const done = driveRun(this.ports, log)
      .then(() => this.remember(log))
      .catch((error: unknown) => this.ports.logger.warn({ runId: log.runId, err: toErrorReply(error).message }, 'run driver stopped'))
      .finally(() => this.running.delete(log.runId));
    this.running.set(log.runId, done);
    return done;
  }

  async resumeUnfinished(): Promise<string[]> {
    // From the saved checkpoint: a restart reads only what was appended since the last one.
    const { active } = await catchUpProjection(this.ports.store, this.ports.store.checkpoints, activeRunsProjection);
    for (const runId of active) {
      if (this.closed) break;
      this.ports.logger.info({ runId }, 'resuming unfinished run');
      void this.drive(await RunLog.open(this.ports, runId));
    }
    return active;
  }

  /** Waits for in-flight runs; used by tests and graceful shutdown. */
  async settle(): Promise<void> {
    await Promise.all(this.running.values());
  }

  close(): void {
    this.closed = true;
  }

  /** The conversation stream keeps each finished turn: the user's message and the answer. */
  private async remember(log: RunLog): Promise<void> {
    const { start, status, answer } = log.state;
    if (!start || status !== 'completed') return;
    const metadata = { runId: start.runId, conversationId: start.conversationId, correlationId: start.runId, occurredAt: this.ports.clock().toISOString() };
    const turn: EventOf<'MessageAppended'>[] = [
      { type: 'MessageAppended', data: { messageId: `${start.runId}.user`, role: 'user', content: start.userInput, instructions: [], intermediate: false, kind: 'user_input' }, metadata },
      { type: 'MessageAppended', data: { messageId: `${start.runId}.answer`, role: 'assistant', content: answer ?? '', instructions: [], intermediate: false, kind: 'assistant' }, metadata },
    ];
    await this.ports.store.appendToStream(streams.conversation(start.conversationId), turn.map((e) => ({ id: this.ports.newId(), ...e })), { expectedRevision: 'any' });
  }
}

export const isTurnMessage = (e: StagecraftEvent): e is EventOf<'MessageAppended'> => e.type === 'MessageAppended';
