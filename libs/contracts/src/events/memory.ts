import { z } from 'zod';
import { Id, NonBlank } from '../common';
import { MemorySource, MemoryTier } from '../memory';
import { EventUnion, eventFamily } from './family';

/** `memory-<scope>`: what was retained in one scope. */
export const memoryEventSchemas = {
  MemoryRetained: z.object({
    memoryId: Id,
    scope: Id,
    tier: MemoryTier,
    content: NonBlank,
    tags: z.array(z.string()),
    source: MemorySource.optional(),
  }),
  /** One memory withdrawn, with why (a bounded tier dropping its oldest, a merge into another): audited, never erased. */
  MemoryRetracted: z.object({ memoryId: Id, scope: Id, reason: NonBlank }),
  /** Reflection found two memories related (`related`) or one a near-duplicate of the other (`duplicate`, `from` merged into `to`). */
  MemoryLinked: z.object({ scope: Id, from: Id, to: Id, kind: z.enum(['related', 'duplicate']), score: z.number() }),
};

export const memoryEvents = eventFamily(memoryEventSchemas);
export type MemoryEvent = EventUnion<typeof memoryEventSchemas>;
