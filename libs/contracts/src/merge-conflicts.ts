import { z } from 'zod';
import { NonBlank } from './common';

/** Why a file of a ticket's copy was not merged into the project root (docs/decisions/0036). */
export const MergeConflictReason = z.enum(['both-edited', 'both-added', 'user-deleted', 'ticket-deleted', 'unwritable']);
export type MergeConflictReason = z.infer<typeof MergeConflictReason>;

/** Text of one version of a conflicting file, cut to a bound; null where that side has no file. */
const Version = z.string().max(20_000).nullable();

/** The three versions of a conflicting file and a unified diff from the user's to the ticket's, for the collector. */
export const ConflictVersions = z.object({
  base: Version.describe('the file as the snapshot the ticket started from had it'),
  ours: Version.describe("the user's file in the project root now"),
  theirs: Version.describe("the ticket agent's file"),
  diff: z.string().max(40_000).describe("unified diff from the user's version to the ticket's"),
});
export type ConflictVersions = z.infer<typeof ConflictVersions>;

/** What a conflict leaves besides the user's file, which stays as it is: where the ticket's version is kept. */
export const ConflictDetail = {
  reason: MergeConflictReason.optional(),
  kept: NonBlank.optional().describe("absolute path of the ticket's version, kept for the user"),
  versions: ConflictVersions.optional(),
  /** The sha256 of the user's file when the merge left it (null: no file): a resolution is applied only over that file. */
  userSha256: z.string().nullable().optional(),
};
