import { REDACTION_MARK, redactionsIn } from '@stagecraft/sandbox';
import { ToolFailureError } from './outcome';

/**
 * Tool results are scrubbed of secrets before the model reads them, so a model that writes back what it
 * read would put `[redacted:…]` where the user's secret was, and the secret would be gone. A write
 * that holds more redactions than the file had is refused; nothing is written.
 */
export function refuseRedactedSecrets(shown: string, before: string | null, after: string): void {
  const added = redactionsIn(after) - redactionsIn(before ?? '');
  if (added <= 0) return;
  throw new ToolFailureError({
    kind: 'REDACTED_CONTENT',
    problem: `the new content of '${shown}' holds ${added} '${REDACTION_MARK}…]' placeholder${added === 1 ? '' : 's'} the file does not have: they stand for secrets hidden from you, and writing them would destroy the real values; nothing was written`,
    retry: 'change only the lines you need with apply_patch, and leave every line that showed a redaction out of your hunks',
  });
}
