import { createScrubber, sandboxOptionsFromEnv, secretsFromEnv } from '@stagecraft/sandbox';
import type { ToolContext } from '@stagecraft/tools';

export interface ToolExecutionOptions {
  /**
   * Directories whose subtrees a request's `projectRoot` may name; defaults to the shell's
   * `STAGECRAFT_PROJECT_ROOTS`. Undefined in both: any existing absolute directory (the embedded CLI).
   */
  allowedRoots?: readonly string[];
  /** Executables `run_command` may start; defaults to DEFAULT_ALLOWED_COMMANDS of @stagecraft/tools. */
  allowedCommands?: string[];
  /** How long a duplicate of a call recorded without a deadline waits for its result before giving up. */
  inFlightWaitMs?: number;
  /** Where this host notes the processes of calls in flight, so the next tool service can stop them. */
  inFlightDir?: string;
  /** How `run_command` is confined (see @stagecraft/sandbox); default: bubblewrap when it works here. */
  sandbox?: ToolContext['sandbox'];
  /** Redacts configured secrets from every tool result before it is stored or sent; without it, secrets by their form only. */
  scrub?: (text: string) => string;
}

/** Without configured secrets, results are still scrubbed of secrets recognised by their form. */
export const scrubByShape = createScrubber({});

/**
 * What the tool service reads from its environment beyond the shell's own variables: how commands
 * are sandboxed (`STAGECRAFT_SANDBOX*`: limits, /tmp size, sandboxes at once; the unsafe opt-out) and
 * which secrets to redact from results (`OPENAI_API_KEY`, `*_KEY`, `*_TOKEN`, `*_SECRET`, `*_PASSWORD`,
 * `STAGECRAFT_SECRET_VARS`, and by their form: passwords in URLs, well-known key formats). The project
 * roots are the shell's (`STAGECRAFT_PROJECT_ROOTS`, shared with the conversation service).
 * The caller passes its environment in; this lib does not read `process.env` itself.
 */
export function toolExecutionOptionsFromEnv(env: Record<string, string | undefined>): ToolExecutionOptions {
  return { sandbox: sandboxOptionsFromEnv(env), scrub: createScrubber(secretsFromEnv(env)) };
}
