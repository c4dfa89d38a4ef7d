import { toErrorReply } from '@stagecraft/contracts';
import type { RunningProcessor } from '@stagecraft/event-store';
import { leaseKey } from '@stagecraft/messaging';
import { HeldLease, LeasePorts } from './held-lease';

/**
 * A log processor that runs on one replica of the set at a time: the replica holding the processor's
 * lease runs it from the shared checkpoint; the others try to take the lease on every sweep and start
 * it when the leader's lease expired. A leader that loses its lease stops the processor.
 */
export class ProcessorLeadership {
  private lease: HeldLease | null = null;
  private running: RunningProcessor | null = null;
  private turn: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly ports: LeasePorts,
    readonly name: string,
    private readonly start: () => Promise<RunningProcessor>,
  ) {}

  get leading(): RunningProcessor | null {
    return this.running;
  }

  /** Takes the lead if nobody has it; the running processor when this replica leads. */
  tryLead(): Promise<RunningProcessor | null> {
    const attempt = this.turn.then(() => this.lead());
    this.turn = attempt.catch(() => undefined);
    return attempt;
  }

  private async lead(): Promise<RunningProcessor | null> {
    if (this.running) return this.running;
    const lease = await HeldLease.take(this.ports, leaseKey('processor', this.name));
    if (!lease) return null;
    try {
      this.running = await this.start();
    } catch (error) {
      await lease.release();
      throw error;
    }
    this.lease = lease;
    this.ports.logger.info({ processor: this.name, owner: this.ports.owner }, 'leading processor');
    lease.onLost(() => void (this.turn = this.turn.then(() => this.stepDown())));
    return this.running;
  }

  private async stepDown(): Promise<void> {
    const running = this.running;
    this.running = null;
    this.lease = null;
    try {
      await running?.stop();
    } catch (error) {
      this.ports.logger.error({ processor: this.name, err: toErrorReply(error).message }, 'processor did not stop cleanly');
    }
  }

  async stop(): Promise<void> {
    await this.turn;
    const lease = this.lease;
    await this.stepDown();
    await lease?.release();
  }
}
