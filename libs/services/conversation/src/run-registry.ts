import { StagecraftEvent, toErrorReply } from '@stagecraft/contracts';
import { catchUpProjection } from '@stagecraft/event-store';
import { publishRunEvent } from '@stagecraft/messaging';
import { Fault } from '@stagecraft/run';
import { activeRunsProjection } from './active-runs';
import { DriverPorts } from './driver-ports';
import { decideAndAppend, driveRun } from './effects';
import { RunKnowledge } from './knowledge';
import { RunLog } from './run-log';

export interface RunRegistryOptions {
  /** How often failures that could not be recorded are tried again (default 5 s). */
  recoveryIntervalMs?: number;
}

/**
 * The runs this process is driving. Every run it starts ends: when a driver stops for any reason, the
 * run gets `RunFailed` with that reason; when even that cannot be stored, waiting clients are told on
 * the live feed and the failure is recorded by the recovery sweep once the store takes writes again.
 */
export class RunRegistry {
  private readonly running = new Map<string, Promise<void>>();
  private readonly unrecorded = new Map<string, Fault>();
  private sweeper?: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly ports: DriverPorts,
    private readonly options: RunRegistryOptions = {},
  ) {}

  drive(log: RunLog, knowledge?: RunKnowledge): Promise<void> {
    const existing = this.running.get(log.runId);
    if (existing) return existing;
    const done = driveRun(this.ports, log, knowledge)
      .catch((error: unknown) => this.stopped(log, error))
      .finally(() => this.running.delete(log.runId));
    this.running.set(log.runId, done);
    return done;
  }

  /**
   * Drives a stored run on from where its log stops: after a restart, from the head a fork copied, or
   * after a person answered what it waits for. A run that waits (or has ended) is left as it is: its
   * driver returns at once. A driver still winding down (a run that has just begun to wait) has not read
   * what was appended since: the run is driven again once it stops.
   */
  async resume(runId: string): Promise<void> {
    const winding = this.running.get(runId);
    if (winding) {
      void winding
        .then(() => this.resume(runId))
        .catch((error: unknown) => this.ports.logger.error({ runId, err: toErrorReply(error).message }, 'run could not be driven on'));
      return;
    }
    void this.drive(await RunLog.open(this.ports, runId));
  }

  async resumeUnfinished(): Promise<string[]> {
    // From the saved checkpoint: a restart reads only what was appended since the last one.
    const { active } = await catchUpProjection(this.ports.store, this.ports.store.checkpoints, activeRunsProjection);
    for (const runId of active) {
      if (this.closed) break;
      this.ports.logger.info({ runId }, 'resuming unfinished run');
      await this.resume(runId);
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
    for (const [runId, fault] of this.unrecorded) {
      if (this.closed || this.running.has(runId)) continue;
      try {
        await this.recordStop(await RunLog.open(this.ports, runId), fault);
        this.unrecorded.delete(runId);
        this.ports.logger.info({ runId }, 'recorded the failure of a run that had stopped');
      } catch (error) {
        this.ports.logger.warn({ runId, err: toErrorReply(error).message }, 'run failure still cannot be recorded');
      }
    }
  }

  private recordStop(log: RunLog, fault: Fault): Promise<void> {
    return decideAndAppend(
      this.ports,
      log,
      { type: 'RunStopped', fault, at: this.ports.clock().toISOString() },
      new RunKnowledge(this.ports),
    );
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
    const fault = toErrorReply(error);
    if (fault.code === 'CONFLICT') {
      this.ports.logger.info({ runId: log.runId, err: fault.message }, 'run is driven by another writer');
      return;
    }
    const state = log.state;
    this.ports.logger.error(
      { runId: log.runId, stage: state.status === 'new' ? undefined : state.current?.stage, code: fault.code, err: fault.message },
      'run driver stopped',
    );
    if (state.status !== 'running') return;
    try {
      await this.recordStop(log, fault);
    } catch (appendError) {
      const unrecorded = toErrorReply(appendError).message;
      this.unrecorded.set(log.runId, fault);
      this.ports.logger.error({ runId: log.runId, err: unrecorded }, 'run failure could not be recorded; telling clients directly');
      // Nothing is in the log to follow, so this one notice goes out directly; the sweep records it later.
      const notice = {
        type: 'RunFailed',
        data: { code: fault.code, reason: `${fault.message} (not yet recorded: ${unrecorded})`, stage: state.current?.stage },
        metadata: {
          runId: log.runId,
          conversationId: state.start.conversationId,
          correlationId: log.runId,
          occurredAt: this.ports.clock().toISOString(),
        },
      } as const satisfies StagecraftEvent;
      publishRunEvent(this.ports.bus, this.ports.prefix, notice);
    }
  }
}
