import { EventOf, StagecraftEvent, streams, toErrorReply } from '@stagecraft/contracts';
import { catchUpProjection } from '@stagecraft/event-store';
import { publishRunEvent } from '@stagecraft/messaging';
import { pending } from '@stagecraft/run';
import { activeRunsProjection } from './active-runs';
import { DriverPorts } from './driver-ports';
import { driveRun } from './run-driver';
import { RunLog } from './run-log';

export interface RunRegistryOptions {
  /** How often failures that could not be recorded are tried again (default 5 s). */
  recoveryIntervalMs?: number;
}

interface UnrecordedFailure {
  code: EventOf<'RunFailed'>['data']['code'];
  reason: string;
}

/**
 * The runs this process is driving. Every run it starts ends: when a driver stops for any reason, the
 * run gets `RunFailed` with that reason; when even that cannot be stored, waiting clients are told on
 * the live feed and the failure is recorded by the recovery sweep once the store takes writes again.
 */
export class RunRegistry {
  private readonly running = new Map<string, Promise<void>>();
  private readonly unrecorded = new Map<string, UnrecordedFailure>();
  private sweeper?: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly ports: DriverPorts,
    private readonly options: RunRegistryOptions = {},
  ) {}

  drive(log: RunLog): Promise<void> {
    const existing = this.running.get(log.runId);
    if (existing) return existing;
    const done = driveRun(this.ports, log)
      .then(() => this.remember(log))
      .catch((error: unknown) => this.stopped(log, error))
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

  /** Starts the sweep that records failures the store refused at the time (a full disk, a lost connection). */
  startRecovery(): void {
    if (this.sweeper || this.closed) return;
    this.sweeper = setInterval(() => void this.recordUnrecorded(), this.options.recoveryIntervalMs ?? 5_000);
    this.sweeper.unref();
  }

  private async recordUnrecorded(): Promise<void> {
    for (const [runId, failure] of this.unrecorded) {
      if (this.closed || this.running.has(runId)) continue;
      try {
        const log = await RunLog.open(this.ports, runId);
        if (log.state.status === 'running') await log.append([pending('RunFailed', { code: failure.code, reason: failure.reason, stage: log.state.stage ?? undefined })]);
        this.unrecorded.delete(runId);
        this.ports.logger.info({ runId }, 'recorded the failure of a run that had stopped');
      } catch (error) {
        this.ports.logger.warn({ runId, err: toErrorReply(error).message }, 'run failure still cannot be recorded');
      }
    }
  }

  /** Waits for in-flight runs; used by tests and graceful shutdown. */
  async settle(): Promise<void> {
    await Promise.all(this.running.values());
  }

  close(): void {
    this.closed = true;
    if (this.sweeper) clearInterval(this.sweeper);
  }

  private async stopped(log: RunLog, error: unknown): Promise<void> {
    const { code, message } = toErrorReply(error);
    if (code === 'CONFLICT') {
      this.ports.logger.info({ runId: log.runId, err: message }, 'run is driven by another writer');
      return;
    }
    this.ports.logger.error({ runId: log.runId, stage: log.state.stage, code, err: message }, 'run driver stopped');
    if (log.state.status !== 'running') return;
    const failed = pending('RunFailed', { code, reason: message, stage: log.state.stage ?? undefined });
    try {
      await log.append([failed]);
    } catch (appendError) {
      const reason = `${message} (not yet recorded: ${toErrorReply(appendError).message})`;
      this.unrecorded.set(log.runId, { code, reason: message });
      this.ports.logger.error({ runId: log.runId, err: toErrorReply(appendError).message }, 'run failure could not be recorded; telling clients directly');
      const start = log.state.start;
      const notice = {
        type: 'RunFailed',
        data: { ...failed.data, reason },
        metadata: { runId: log.runId, conversationId: start?.conversationId, correlationId: log.runId, occurredAt: this.ports.clock().toISOString() },
      } as StagecraftEvent;
      publishRunEvent(this.ports.bus, this.ports.prefix, notice);
    }
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
