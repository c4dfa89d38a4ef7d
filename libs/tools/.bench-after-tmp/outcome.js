"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.succeeded = exports.ToolFailureError = void 0;
exports.failed = failed;
exports.outcomeOfError = outcomeOfError;
const contracts_1 = require("@stagecraft/contracts");
class ToolFailureError extends Error {
    failure;
    constructor(failure) {
        super(failure.problem);
        this.failure = failure;
        this.name = 'ToolFailureError';
    }
}
exports.ToolFailureError = ToolFailureError;
const succeeded = (output, truncated = false) => ({ ok: true, output, truncated });
exports.succeeded = succeeded;
function failed(failure, truncated = false) {
    const text = (0, contracts_1.toolErrorText)({ code: failure.kind, problem: failure.problem, retry: failure.retry });
    return { ok: false, output: failure.details === undefined ? text : `${text}\ndetails:\n${failure.details}`, truncated };
}
const OUTSIDE_RETRY = 'use a path relative to the project root that stays inside it: no "..", no absolute path, no symlink that leads out';
/**
 * Every error a tool raises becomes a failed outcome, even an unexpected one: a call that throws would
 * leave its record without a result, and the model would learn nothing it could act on.
 */
function outcomeOfError(error) {
    if (error instanceof ToolFailureError)
        return failed(error.failure);
    if (error instanceof contracts_1.StagecraftError && error.code === 'FORBIDDEN_PATH') {
        return failed({ kind: 'FORBIDDEN_PATH', problem: error.message, retry: OUTSIDE_RETRY });
    }
    const problem = error instanceof Error ? error.message : String(error);
    if (typeof error?.code === 'string') {
        return failed({
            kind: 'IO_ERROR',
            problem,
            retry: 'check the path and its permissions with list_dir, then retry with a path that exists and is accessible',
        });
    }
    return failed({ kind: 'INTERNAL', problem, retry: 'retry once; if it fails the same way, reach the goal with a different tool' });
}
//# sourceMappingURL=outcome.js.map