import { FileChange, StagecraftError, toolErrorText } from '@stagecraft/contracts';

/** What one tool call produced, before the service adds the call id, duration and replay flag. */
export interface ToolOutcome {
  ok: boolean;
  output: string;
  truncated: boolean;
  /** What a successful write did to each file it touched, in the order written. */
  changes?: FileChange[];
}

export type FailureKind =
  | 'INVALID_ARGUMENTS'
  | 'FORBIDDEN_PATH'
  | 'NOT_FOUND'
  | 'NOT_A_FILE'
  | 'NOT_A_DIRECTORY'
  | 'BINARY_FILE'
  | 'TOO_LARGE'
  | 'OUT_OF_RANGE'
  | 'INVALID_PATTERN'
  | 'ALREADY_EXISTS'
  | 'PATCH_INVALID'
  | 'PATCH_REJECTED'
  | 'REDACTED_CONTENT'
  | 'COMMAND_NOT_ALLOWED'
  | 'COMMAND_NOT_FOUND'
  | 'COMMAND_FAILED'
  | 'COMMAND_TIMEOUT'
  | 'SANDBOX_UNAVAILABLE'
  | 'IO_ERROR'
  | 'INTERRUPTED'
  | 'INTERNAL';

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

export class ToolFailureError extends Error {
  constructor(readonly failure: ToolFailure) {
    super(failure.problem);
    this.name = 'ToolFailureError';
  }
}

export const succeeded = (output: string, truncated = false): ToolOutcome => ({ ok: true, output, truncated });

export function failed(failure: ToolFailure, truncated = false): ToolOutcome {
  const text = toolErrorText({ code: failure.kind, problem: failure.problem, retry: failure.retry });
  return { ok: false, output: failure.details === undefined ? text : `${text}\ndetails:\n${failure.details}`, truncated };
}

const OUTSIDE_RETRY = 'use a path relative to the project root that stays inside it: no "..", no absolute path, no symlink that leads out';

/**
 * Every error a tool raises becomes a failed outcome, even an unexpected one: a call that throws would
 * leave its record without a result, and the model would learn nothing it could act on.
 */
export function outcomeOfError(error: unknown): ToolOutcome {
  if (error instanceof ToolFailureError) return failed(error.failure);
  if (error instanceof StagecraftError && error.code === 'FORBIDDEN_PATH') {
    return failed({ kind: 'FORBIDDEN_PATH', problem: error.message, retry: OUTSIDE_RETRY });
  }
  const problem = error instanceof Error ? error.message : String(error);
  if (typeof (error as NodeJS.ErrnoException | undefined)?.code === 'string') {
    return failed({
      kind: 'IO_ERROR',
      problem,
      retry: 'check the path and its permissions with list_dir, then retry with a path that exists and is accessible',
    });
  }
  return failed({ kind: 'INTERNAL', problem, retry: 'retry once; if it fails the same way, reach the goal with a different tool' });
}
