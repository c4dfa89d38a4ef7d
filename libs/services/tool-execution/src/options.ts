import { delimiter, isAbsolute } from 'node:path';
import { StagecraftError } from '@stagecraft/contracts';

/** Injection token for the options the module was created with. */
export const TOOL_EXECUTION_OPTIONS = Symbol('TOOL_EXECUTION_OPTIONS');

export interface ToolExecutionOptions {
  /**
   * Directories whose subtrees a request's `projectRoot` may name. Undefined: any existing absolute
   * directory, which suits the embedded deployment, where the caller is the user's own CLI.
   */
  allowedRoots?: string[];
  /** Executables `run_command` may start; defaults to DEFAULT_ALLOWED_COMMANDS of @stagecraft/tools. */
  allowedCommands?: string[];
  /** How long a duplicate of a call that is still running waits for its result before giving up. */
  inFlightWaitMs?: number;
}

/**
 * `STAGECRAFT_PROJECT_ROOT`: one or more absolute directories, separated like PATH entries. A
 * distributed deployment sets it to the mounted workspace so a request cannot name another directory.
 * The caller passes its environment in; this lib does not read `process.env` itself.
 */
export function toolExecutionOptionsFromEnv(env: Record<string, string | undefined>): ToolExecutionOptions {
  const roots = (env.STAGECRAFT_PROJECT_ROOT ?? '').split(delimiter).map((r) => r.trim()).filter((r) => r.length > 0);
  if (roots.length === 0) return {};
  const relative = roots.filter((r) => !isAbsolute(r));
  if (relative.length > 0) {
    const message = `entries must be absolute paths, got ${relative.map((r) => `'${r}'`).join(', ')}`;
    throw new StagecraftError('VALIDATION', `invalid configuration: STAGECRAFT_PROJECT_ROOT: ${message}`, [{ path: ['STAGECRAFT_PROJECT_ROOT'], message }]);
  }
  return { allowedRoots: roots };
}
