"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.CappedOutput = void 0;
/**
 * Collects a process's output up to `limit` bytes. Past the limit it keeps the first and the last
 * half and says how much was left out between them: the start shows what ran, the end how it failed.
 */
class CappedOutput {
    limit;
    head = [];
    headBytes = 0;
    tail = [];
    tailBytes = 0;
    total = 0;
    constructor(limit) {
        this.limit = limit;
    }
    push(chunk) {
        this.total += chunk.length;
        const taken = chunk.subarray(0, Math.max(0, this.limit - this.headBytes));
        if (taken.length > 0) {
            this.head.push(taken);
            this.headBytes += taken.length;
        }
        const rest = chunk.subarray(taken.length);
        if (rest.length === 0)
            return;
        this.tail.push(rest);
        this.tailBytes += rest.length;
        while (this.tail.length > 1 && this.tailBytes - this.tail[0].length >= this.limit / 2)
            this.tailBytes -= this.tail.shift().length;
    }
    get truncated() {
        return this.total > this.limit;
    }
    text() {
        const all = Buffer.concat([...this.head, ...this.tail]);
        if (!this.truncated)
            return all.toString('utf8');
        const half = Math.floor(this.limit / 2);
        const omitted = this.total - 2 * half;
        return `${all.subarray(0, half).toString('utf8')}\n[… ${omitted} bytes of output omitted …]\n${all.subarray(all.length - half).toString('utf8')}`;
    }
}
exports.CappedOutput = CappedOutput;
//# sourceMappingURL=capped-output.js.map