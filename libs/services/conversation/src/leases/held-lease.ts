import { toErrorReply } from '@stagecraft/contracts';
import type { LeaseStore } from '@stagecraft/messaging';
import type { Logger } from 'pino';
import { LeaseState, RenewalOutcome, afterRenewal, heldAt, mayAct, renewEveryMs } from './lease-decisions';

export interface LeasePorts {
  leases: LeaseStore;
  /** This replica, as the lease records its owner. */
  owner: string;
  clock: () => Date;
  logger: Logger;
}

/** A lease this replica took: renewed on a timer until released or lost; `onLost` hears of a loss once. */
export class HeldLease {
  private state: LeaseState;
  private readonly timer: NodeJS.Timeout;
  private lostListener?: () => void;
  private renewing: Promise<void> = Promise.resolve();

  private constructor(
    private readonly ports: LeasePorts,
    readonly key: string,
    revision: number,
    askedAt: number,
  ) {
    this.state = heldAt(revision, askedAt);
    this.timer = setInterval(() => (this.renewing = this.renew()), renewEveryMs(ports.leases.ttlMs));
    this.timer.unref();
  }

  /** Null when another replica holds the key. */
  static async take(ports: LeasePorts, key: string): Promise<HeldLease | null> {
    // The store starts the TTL when it writes, after this: counting from the ask errs on the safe side.
    const askedAt = ports.clock().getTime();
    const revision = await ports.leases.take(key, ports.owner);
    return revision === null ? null : new HeldLease(ports, key, revision, askedAt);
  }

  get held(): boolean {
    return mayAct(this.state, this.now(), this.ports.leases.ttlMs);
  }

  onLost(listener: () => void): void {
    this.lostListener = listener;
  }

  async release(): Promise<void> {
    clearInterval(this.timer);
    // A renewal on its way would write a revision the release does not name, and keep the lease alive.
    await this.renewing;
    if (this.state.kind !== 'held') return;
    const { revision } = this.state;
    this.state = { kind: 'lost', reason: 'taken' };
    try {
      await this.ports.leases.release(this.key, revision);
    } catch (error) {
      // It expires on its own.
      this.ports.logger.warn({ lease: this.key, err: toErrorReply(error).message }, 'lease could not be released');
    }
  }

  private async renew(): Promise<void> {
    if (this.state.kind !== 'held') return;
    let outcome: RenewalOutcome;
    const askedAt = this.now();
    try {
      const revision = await this.ports.leases.renew(this.key, this.ports.owner, this.state.revision);
      outcome = revision === null ? { kind: 'refused' } : { kind: 'renewed', revision };
    } catch (error) {
      this.ports.logger.warn({ lease: this.key, err: toErrorReply(error).message }, 'lease could not be renewed; trying again');
      outcome = { kind: 'failed' };
    }
    const before = this.state;
    this.state = afterRenewal(this.state, outcome, askedAt, this.ports.leases.ttlMs);
    if (before.kind === 'held' && this.state.kind === 'lost') {
      clearInterval(this.timer);
      this.ports.logger.warn({ lease: this.key, reason: this.state.reason }, 'lease lost');
      this.lostListener?.();
    }
  }

  private now(): number {
    return this.ports.clock().getTime();
  }
}
