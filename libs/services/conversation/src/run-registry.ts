import { StagecraftEvent, toErrorReply } from '@stagecraft/contracts';
import { catchUpProjection, isStoreFull } from '@stagecraft/event-store';
import { inProcessLeases, leaseKey, publishRunEvent } from '@stagecraft/messaging';
import { Fault } from '@stagecraft/run';
import { activeRunsProjection } from './active-runs';
import { DriverPorts } from './driver-ports';
import { decideAndAppend, driveRun } from './effects';
import { RunKnowledge } from './knowledge';
import { HeldLease, LeasePorts } from './leases/held-lease';
import { runsToTake } from './leases/lease-decisions';
import { RunLog } from './run-log';
import { DEFAULT_LEASE_TTL_MS } from './scale-config';

export interface RunRegistryOptions {
  /** How often failures that could not be recorded are tried again (default 5 s). */
  recoveryIntervalMs?: number;
  /** The run leases this replica takes; default: in-process ones (one process is the whole replica set). */
  leases?: LeasePorts;
  /**
   * How often a driven run's log is checked for a cancellation another process appended without a notice
   * reaching this one (another embedded process on the same store; a lost notice). Default 1 s.
   */
  cancelPollMs?: number;
}

/**
 * The runs this process is driving. Every run it starts ends: when a driver stops for any reason, the
 * run gets `RunFailed` with that reason; when even that cannot be stored, waiting clients are told on
 * the live feed and the failure is recorded by the recovery sweep once the store takes writes again.
 *
 * A replica drives a run only under the run's lease (docs/decisions/0026): it takes the lease before
 * it reads the run, renews it while it drives, and releases it when the driver stops (the run ended, or
 * waits for a person). A run whose driver died keeps its lease until the lease expires; then the
 * takeover sweep of any replica takes it and drives the run on from its log. Appends also expect the
 * revision the driver last saw, so a replica that lost its lease without noticing cannot add to the run.
 */
export class RunRegistry {
  private readonly running = new Map<string, Promise<void>>();
  private readonly unrecorded = new Map<string, Fault>();
  private readonly leases: LeasePorts;
  private sweeper?: NodeJS.Timeout;
  private closed = false;
  /** The leases of the runs this replica drives right now. */
  private readonly held = new Map<string, HeldLease>();
  /** Fired when a run driven here is cancelled: its driver cuts the step in flight short. */
  private readonly cancellations = new Map<string, AbortController>();

  constructor(
    private readonly ports: DriverPorts,
    private readonly options: RunRegistryOptions = {},
  ) {
    this.leases = options.leases ?? {
      leases: inProcessLeases(DEFAULT_LEASE_TTL_MS),
      owner: 'this-process',
      clock: ports.clock,
      logger: ports.logger,
    };
  }

  /** Drives a run this process has just appended to (a new run); another replica's lease on it wins. */
  drive(log: RunLog, knowledge?: RunKnowledge): Promise<void> {
    return this.underLease(log.runId, () => log.caughtUp(), knowledge);
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
    void this.underLease(runId, () => RunLog.open(this.ports, runId));
  }

  async resumeUnfinished(): Promise<string[]> {
    const active = await this.activeRuns();
    for (const runId of active) {
      if (this.closed) break;
      this.ports.logger.info({ runId }, 'resuming unfinished run');
      await this.resume(runId);
    }
    return active;
  }

  /**
   * One takeover sweep: every unfinished run this replica does not drive is tried, and those whose lease
   * is free are driven here. A run whose failure waits to be recorded is the recovery sweep's.
   */
  async takeOver(): Promise<void> {
    if (this.closed) return;
    const here = new Set([...this.running.keys(), ...this.unrecorded.keys()]);
    for (const runId of runsToTake(await this.activeRuns(), here)) {
      if (this.closed) break;
      await this.resume(runId);
    }
  }

  /** From the saved checkpoint: a sweep reads only what was appended since the last one. */
  private async activeRuns(): Promise<string[]> {
    const { active } = await catchUpProjection(this.ports.store, this.ports.store.checkpoints, activeRunsProjection);
    return active;
  }

  /**
   * Takes the run's lease, then reads the run (`open`) and drives it until its driver stops; releases
   * the lease after. Nothing happens when another replica holds it, or this process drives it already.
   */
  private underLease(runId: string, open: () => Promise<RunLog>, knowledge?: RunKnowledge): Promise<void> {
    const existing = this.running.get(runId);
    if (existing) return existing;
    const done = this.driveLeased(runId, open, knowledge).finally(() => this.running.delete(runId));
    this.running.set(runId, done);
    return done;
  }

  private async driveLeased(runId: string, open: () => Promise<RunLog>, knowledge?: RunKnowledge): Promise<void> {
    let lease: HeldLease | null;
    try {
      lease = await HeldLease.take(this.leases, leaseKey('run', runId));
    } catch (error) {
      // The takeover sweep (or the next start) tries again; the run keeps its place in the log meanwhile.
      this.ports.logger.warn({ runId, err: toErrorReply(error).message }, 'run lease could not be taken');
      return;
    }
    if (!lease) {
      this.ports.logger.debug({ runId }, 'run is driven by another replica');
      return;
    }
    try {
      let log: RunLog;
      try {
        log = await open();
      } catch (error) {
        this.ports.logger.error({ runId, err: toErrorReply(error).message }, 'run could not be read; it is tried again later');
        return;
      }
      const held = lease;
      log.guardWith(() => held.held);
      this.held.set(runId, held);
      const cancellation = new AbortController();
      this.cancellations.set(runId, cancellation);
      const poll = setInterval(() => void this.pollCancelled(log), this.options.cancelPollMs ?? 1_000);
      poll.unref();
      try {
        await driveRun(this.ports, log, knowledge, cancellation.signal).catch((error: unknown) => this.stopped(log, error));
      } finally {
        clearInterval(poll);
      }
    } finally {
      this.cancellations.delete(runId);
      this.held.delete(runId);
      await lease.release();
    }
  }

  /**
   * A notice that a run was cancelled: when this replica drives it, and its log says so (a notice is only
   * a hint, and anyone on the bus may send one), its driver is stopped. Returns whether it was.
   */
  async noticeCancelled(runId: string): Promise<boolean> {
    const cancellation = this.cancellations.get(runId);
    if (!cancellation || cancellation.signal.aborted) return false;
    const { state } = await RunLog.open(this.ports, runId);
    if (state.status !== 'cancelled') return false;
    this.ports.logger.info({ runId }, 'run was cancelled; stopping its driver');
    cancellation.abort();
    return true;
  }

  private async pollCancelled(log: RunLog): Promise<void> {
    try {
      if (await log.changedElsewhere()) await this.noticeCancelled(log.runId);
    } catch (error) {
      this.ports.logger.debug({ runId: log.runId, err: toErrorReply(error).message }, 'could not check the run for a cancellation');
    }
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
      let lease: HeldLease | null = null;
      try {
        lease = await HeldLease.take(this.leases, leaseKey('run', runId));
        // Another replica took the run over: it records what happens to it.
        if (lease) await this.recordStop(await RunLog.open(this.ports, runId), fault);
        this.unrecorded.delete(runId);
        if (lease) this.ports.logger.info({ runId }, 'recorded the failure of a run that had stopped');
      } catch (error) {
        this.ports.logger.warn({ runId, err: toErrorReply(error).message }, 'run failure still cannot be recorded');
      } finally {
        await lease?.release();
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

  /**
   * Stops sweeping and hands back the leases of the runs still being driven, so another replica takes
   * them over at its next sweep instead of after the lease expires. A driver still running here can no
   * longer append: its guard fails (CONFLICT) at its next commit.
   */
  async close(): Promise<void> {
    this.closed = true;
    if (this.sweeper) clearInterval(this.sweeper);
    await Promise.all([...this.held.values()].map((lease) => lease.release()));
  }

  /**
   * Records the stop; when the disk is full, once more after giving back the store's reserve, so the
   * run ends with its cause instead of staying `running` with nothing driving it.
   */
  private async recordStopMakingRoom(log: RunLog, fault: Fault): Promise<void> {
    try {
      await this.recordStop(log, fault);
    } catch (error) {
      if (!isStoreFull(error) || !this.ports.store.releaseReserve?.()) throw error;
      this.ports.logger.warn({ runId: log.runId }, 'event store is full: its reserve is given back to record why the run stopped');
      await this.recordStop(log, fault);
    }
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
      await this.recordStopMakingRoom(log, fault);
    } catch (appendError) {
      if (toErrorReply(appendError).code === 'CONFLICT') {
        this.ports.logger.info({ runId: log.runId }, 'run is driven by another writer; its failure is theirs to record');
        return;
      }
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
