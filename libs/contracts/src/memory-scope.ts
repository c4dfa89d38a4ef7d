import { createHash } from 'node:crypto';
import { resolve } from 'node:path';

/**
 * The memory scope of a project: `p-` and the first 16 hex digits of the SHA-256 of its resolved root.
 * Every service derives it from the root alone, so the tool service, the memory service's write policy
 * and the conversation's recall agree on it without asking each other.
 */
export function memoryScopeOf(projectRoot: string): string {
  return `p-${createHash('sha256').update(resolve(projectRoot)).digest('hex').slice(0, 16)}`;
}
