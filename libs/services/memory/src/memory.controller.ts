import { createHash } from 'node:crypto';
import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import {
  EventOf,
  Memory,
  MemoryRecallReply,
  MemoryRecallRequest,
  MemoryReflectReply,
  MemoryReflectRequest,
  MemoryRetainReply,
  MemoryRetainRequest,
  memoryEvents,
  streams,
} from '@stagecraft/contracts';
import { readEvents } from '@stagecraft/event-store';
import type { EventReader, EventWriter } from '@stagecraft/event-store';
import { recallMemories } from '@stagecraft/memory';
import type { RequestContext } from '@stagecraft/messaging';
import { CLOCK, EVENT_READER, EVENT_STORE, Handles, NEW_ID } from '@stagecraft/service-shell';
import type { Clock, NewId } from '@stagecraft/service-shell';
import { reflectOn } from './reflect';

/** A caller-chosen memory id always maps to the same event id, so a retried retain appends once. */
function eventIdFor(memoryId: string): string {
  const hex = createHash('sha256').update(`memory:${memoryId}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The `memory-<scope>` streams: `memory.retain` appends to them, recall and reflect only read. */
@Controller()
export class MemoryController {
  constructor(
    @Inject(EVENT_READER) private readonly reader: EventReader,
    @Inject(EVENT_STORE) private readonly writer: EventWriter,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(NEW_ID) private readonly newId: NewId,
  ) {}

  @Handles('memory.retain')
  async retain(@Payload() request: MemoryRetainRequest, @Ctx() context: RequestContext): Promise<MemoryRetainReply> {
    const memoryId = request.memoryId ?? this.newId();
    const known = (await this.memories(request.scope)).some((m) => m.memoryId === memoryId);
    if (known) return { memoryId, retained: false };
    const event: EventOf<'MemoryRetained'> = {
      type: 'MemoryRetained',
      data: { memoryId, scope: request.scope, tier: request.tier, content: request.content, tags: request.tags },
      metadata: { correlationId: context.correlationId, causationId: context.causationId, occurredAt: this.clock().toISOString() },
    };
    await this.writer.appendToStream(streams.memory(request.scope), [{ id: eventIdFor(memoryId), ...event }], { expectedRevision: 'any' });
    return { memoryId, retained: true };
  }

  @Handles('memory.recall')
  async recall(@Payload() request: MemoryRecallRequest): Promise<MemoryRecallReply> {
    return { memories: recallMemories(await this.memories(request.scope), request.query, request) };
  }

  /** Reads only: the reflection is built from the scope's stream each time and stored nowhere. */
  @Handles('memory.reflect')
  async reflect(@Payload() { scope, query }: MemoryReflectRequest): Promise<MemoryReflectReply> {
    return reflectOn(await this.memories(scope), scope, query);
  }

  private async memories(scope: string): Promise<Memory[]> {
    return (await readEvents(this.reader, streams.memory(scope), memoryEvents)).map((e) => e.data);
  }
}
