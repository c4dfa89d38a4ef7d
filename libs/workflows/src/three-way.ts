import type { MergeConflictReason } from '@stagecraft/contracts';

/**
 * One file of a three-way merge, by content digest: `base` as the snapshot recorded it, `ours` as the
 * project root has it now, `theirs` as a ticket agent's copy has it; null where the file is absent.
 */
export interface FileVersions {
  base: string | null;
  ours: string | null;
  theirs: string | null;
}

/**
 * Why a file cannot be merged without a person (or the collector) choosing: both sides edited the same
 * lines, each created the file differently, one deleted what the other edited, or the root's path is not
 * a regular file that can be written.
 */
export type ConflictReason = MergeConflictReason;

export type MergeCase =
  /** The ticket left the file as the snapshot had it: nothing to do. */
  | { kind: 'unchanged' }
  /** Only the ticket changed it: write its version (or delete the file when `theirs` is null). */
  | { kind: 'take-theirs' }
  /** The root already has what the ticket made. */
  | { kind: 'same' }
  /** Both changed the file, all three versions exist: merge line by line; overlapping hunks conflict. */
  | { kind: 'merge-lines' }
  | { kind: 'conflict'; reason: ConflictReason };

/**
 * What merging one file of a ticket's copy into the project root means. Pure. The user's side is never
 * overwritten: anything the user changed since the snapshot is kept or merged with, never replaced.
 */
export function mergeCase({ base, ours, theirs }: FileVersions): MergeCase {
  if (theirs === base) return { kind: 'unchanged' };
  if (ours === base) return { kind: 'take-theirs' };
  if (ours === theirs) return { kind: 'same' };
  if (base === null) return { kind: 'conflict', reason: 'both-added' };
  if (ours === null) return { kind: 'conflict', reason: 'user-deleted' };
  if (theirs === null) return { kind: 'conflict', reason: 'ticket-deleted' };
  return { kind: 'merge-lines' };
}

/** How each conflict reason reads to the user and to the collector. */
export const CONFLICT_REASONS: Readonly<Record<ConflictReason, string>> = {
  'both-edited': 'the user and the ticket changed the same lines',
  'both-added': 'the user and the ticket each created this file differently',
  'user-deleted': 'the user deleted the file the ticket changed',
  'ticket-deleted': 'the ticket deleted the file the user changed',
  unwritable: 'the file could not be written where its path leads',
};
