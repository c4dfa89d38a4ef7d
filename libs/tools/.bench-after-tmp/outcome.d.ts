/** What one tool call produced, before the service adds the call id, duration and replay flag. */
export interface ToolOutcome {
    ok: boolean;
    output: string;
    truncated: boolean;
}
export type FailureKind = 'INVALID_ARGUMENTS' | 'FORBIDDEN_PATH' | 'NOT_FOUND' | 'NOT_A_FILE' | 'NOT_A_DIRECTORY' | 'BINARY_FILE' | 'TOO_LARGE' | 'OUT_OF_RANGE' | 'INVALID_PATTERN' | 'ALREADY_EXISTS' | 'PATCH_INVALID' | 'PATCH_REJECTED' | 'COMMAND_NOT_ALLOWED' | 'COMMAND_NOT_FOUND' | 'COMMAND_FAILED' | 'COMMAND_TIMEOUT' | 'SANDBOX_UNAVAILABLE' | 'IO_ERROR' | 'INTERRUPTED' | 'INTERNAL';
/**
 * A tool failure as the model reads it (seed 002 §10.3): what went wrong and what to change on the
 * retry, on labelled lines a prompt can point at, followed by whatever output the tool had.
 */
export interface ToolFailure {
    kind: FailureKind;
    problem: string;
    retry: string;
    details?: string;
}
export declare class ToolFailureError extends Error {
    readonly failure: ToolFailure;
    constructor(failure: ToolFailure);
}
export declare const succeeded: (output: string, truncated?: boolean) => ToolOutcome;
export declare function failed(failure: ToolFailure, truncated?: boolean): ToolOutcome;
/**
 * Every error a tool raises becomes a failed outcome, even an unexpected one: a call that throws would
 * leave its record without a result, and the model would learn nothing it could act on.
 */
export declare function outcomeOfError(error: unknown): ToolOutcome;
//# sourceMappingURL=outcome.d.ts.map