import { z } from 'zod';
import { EventUnion, eventFamily } from './family';
import { Sha256 } from './shared';

/**
 * `promptbody-<sha256>`: one prompt body, stored once per store under its own hash, by the conversation
 * service. `ModelRequested.messageHashes` (and a long body's `contentPieces`) name bodies by that hash.
 */
export const promptEventSchemas = {
  /** A canonical message body (docs/decisions/0010), or one section of a long message's content. */
  PromptBodyStored: z.object({ hash: Sha256, body: z.string() }),
};

export const promptEvents = eventFamily(promptEventSchemas);
export type PromptEvent = EventUnion<typeof promptEventSchemas>;
