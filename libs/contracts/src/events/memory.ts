import { z } from 'zod';
import { Id, NonBlank } from '../common';
import { MemoryTier } from '../memory';
import { EventUnion, eventFamily } from './family';

/** `memory-<scope>`: what was retained in one scope. */
export const memoryEventSchemas = {
  MemoryRetained: z.object({
    memoryId: Id,
    scope: Id,
    tier: MemoryTier,
    content: NonBlank,
    tags: z.array(z.string()),
  }),
};

export const memoryEvents = eventFamily(memoryEventSchemas);
export type MemoryEvent = EventUnion<typeof memoryEventSchemas>;
