import { toErrorReply } from '@stagecraft/contracts';
import { ExitCode, exitCodeOfError } from './exit-codes';

/** A command's error as the person reads it (message, then each issue), and the exit code it means. */
export function reportError(error: unknown): ExitCode {
  const reply = toErrorReply(error);
  process.stderr.write(`stagecraft: ${reply.message}\n`);
  for (const issue of reply.issues) process.stderr.write(`  - ${issue.path.join('.') || '(root)'}: ${issue.message}\n`);
  return exitCodeOfError(reply);
}
