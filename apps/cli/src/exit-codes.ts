import type { ErrorReply } from '@stagecraft/contracts';

/**
 * The one exit-code scheme of every command. Scripts branch on it, so a code keeps its meaning:
 * "unreachable" (worth retrying later) never doubles as "waiting for a person".
 */
export const EXIT = {
  /** The command did what was asked: a run completed `DONE`, a check found nothing. */
  done: 0,
  /** The answer is no: a run failed or needs work, a check found a difference, no such run. */
  failed: 1,
  /** Bad usage or configuration: an unknown option, a bad value, a store directory that does not exist. */
  usage: 2,
  /** A dependency could not be reached: NATS, the event store or the model endpoint (for `health`: anything down). */
  unreachable: 3,
  /** A run or workflow waits for a person's approval (`stagecraft approve`); it stays in the store. */
  waiting: 4,
  /** The event store is damaged (its file fails the integrity check at open): retrying will not help, restoring will. */
  corrupt: 5,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** Printed after `stagecraft --help`; the README's "Exit codes" section says the same. */
export const EXIT_CODES_HELP = `
Exit codes:
  0  done: the run completed DONE, the check found nothing
  1  the run failed or needs work; a workflow failed, was cancelled or stopped
     (its goal cannot be reached); a check found a difference; no such run
  2  usage or configuration error (unknown option, bad value, missing store directory)
  3  a dependency is unreachable: NATS, the event store or the model endpoint;
     for health, a service or a required dependency is down
  4  waiting for approval: answer with \`stagecraft approve <id>\`
  5  the event store is damaged (its file fails the integrity check): restore it from a backup
  130  chat or runs resume was interrupted with Ctrl-C (the run was cancelled, or left at a second press)`;

/** An error a command threw: unreachable and timed-out dependencies are 3, a fault of ours 1, the rest bad input. */
export function exitCodeOfError(reply: Pick<ErrorReply, 'code'>): ExitCode {
  switch (reply.code) {
    case 'UNAVAILABLE':
    case 'TIMEOUT':
    case 'STORE_FULL':
      return EXIT.unreachable;
    case 'INTERNAL':
      return EXIT.failed;
    case 'CORRUPT':
      return EXIT.corrupt;
    default:
      return EXIT.usage;
  }
}

/** How a followed run ended: waiting, failed (an unreachable dependency is told apart), needs work, or done. */
export function exitCodeOfRun(result: { waiting: unknown; failed: boolean; failureCode?: string; deliveryState: string | null }): ExitCode {
  if (result.waiting) return EXIT.waiting;
  if (result.failed) return result.failureCode === 'UNAVAILABLE' || result.failureCode === 'STORE_FULL' ? EXIT.unreachable : EXIT.failed;
  return result.deliveryState === 'NEEDS_WORK' ? EXIT.failed : EXIT.done;
}
