/**
 * Collects a process's output up to `limit` bytes. Past the limit it keeps the first and the last
 * half and says how much was left out between them: the start shows what ran, the end how it failed.
 */
export declare class CappedOutput {
    private readonly limit;
    private readonly head;
    private headBytes;
    private readonly tail;
    private tailBytes;
    private total;
    constructor(limit: number);
    push(chunk: Buffer): void;
    get truncated(): boolean;
    text(): string;
}
//# sourceMappingURL=capped-output.d.ts.map