/**
 * Collects a process's output up to `limit` bytes. Past the limit it keeps the first and the last
 * half and says how much was left out between them: the start shows what ran, the end how it failed.
 */
export class CappedOutput {
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private readonly tail: Buffer[] = [];
  private tailBytes = 0;
  private total = 0;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    this.total += chunk.length;
    const taken = chunk.subarray(0, Math.max(0, this.limit - this.headBytes));
    if (taken.length > 0) {
      this.head.push(taken);
      this.headBytes += taken.length;
    }
    const rest = chunk.subarray(taken.length);
    if (rest.length === 0) return;
    this.tail.push(rest);
    this.tailBytes += rest.length;
    while (this.tail.length > 1 && this.tailBytes - this.tail[0].length >= this.limit / 2)
      this.tailBytes -= (this.tail.shift() as Buffer).length;
  }

  get truncated(): boolean {
    return this.total > this.limit;
  }

  text(): string {
    const all = Buffer.concat([...this.head, ...this.tail]);
    if (!this.truncated) return all.toString('utf8');
    const half = Math.floor(this.limit / 2);
    const omitted = this.total - 2 * half;
    return `${all.subarray(0, half).toString('utf8')}\n[… ${omitted} bytes of output omitted …]\n${all.subarray(all.length - half).toString('utf8')}`;
  }
}
