import { killSpawn } from './in-flight';

/**
 * The calls this process runs now, and those whose run was cancelled meanwhile (`tool.cancel`). A
 * cancelled call's process group is killed, now or as soon as it starts; the call is then recorded as
 * interrupted, never run again. A call with no process (reading a file) finishes and is recorded as
 * it finished.
 */
export class RunningCalls {
  private readonly running = new Set<string>();
  private readonly cancelled = new Set<string>();
  private readonly killed = new Set<string>();

  /** `owner`: the pid of this tool service's process, which noted the calls it started in `inFlightDir`. */
  constructor(
    private readonly inFlightDir: string,
    private readonly owner: number,
  ) {}

  begin(callId: string): void {
    this.running.add(callId);
  }

  /** Its process has started: killed at once if the call was cancelled before. */
  spawned(callId: string): void {
    if (this.cancelled.has(callId)) this.kill(callId);
  }

  /** Whether the call was cut off by a cancellation. */
  end(callId: string): boolean {
    const killed = this.killed.has(callId);
    this.running.delete(callId);
    this.cancelled.delete(callId);
    this.killed.delete(callId);
    return killed;
  }

  /** A call this process does not run is left alone: another replica (or none) runs it. */
  cancel(callId: string): boolean {
    if (!this.running.has(callId)) return false;
    this.cancelled.add(callId);
    this.kill(callId);
    return true;
  }

  private kill(callId: string): void {
    if (killSpawn(this.inFlightDir, callId, this.owner)) this.killed.add(callId);
  }
}
