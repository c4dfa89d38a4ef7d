import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import {
  MemoryRecallReply,
  MemoryRecallRequest,
  MemoryReflectReply,
  MemoryReflectRequest,
  MemoryRetainReply,
  MemoryRetainRequest,
} from '@stagecraft/contracts';
import type { RequestContext } from '@stagecraft/messaging';
import { Handles } from '@stagecraft/service-shell';
import type { MemoryBook } from './memory-book';
import { MEMORY_BOOK } from './tokens';

const linkOf = (context: RequestContext) => ({ correlationId: context.correlationId, causationId: context.causationId });

/** The `memory-<scope>` streams: retain and reflect append to them; recall reads the `memory-memories` view. */
@Controller()
export class MemoryController {
  constructor(@Inject(MEMORY_BOOK) private readonly book: MemoryBook) {}

  @Handles('memory.retain')
  retain(@Payload() request: MemoryRetainRequest, @Ctx() context: RequestContext): Promise<MemoryRetainReply> {
    return this.book.retain(request, linkOf(context));
  }

  @Handles('memory.recall')
  recall(@Payload() request: MemoryRecallRequest): Promise<MemoryRecallReply> {
    return this.book.recall(request);
  }

  /** Links (and merges) the memories bearing on the query, as `MemoryLinked` / `MemoryRetracted` events, and lists them. */
  @Handles('memory.reflect')
  reflect(@Payload() request: MemoryReflectRequest, @Ctx() context: RequestContext): Promise<MemoryReflectReply> {
    return this.book.reflect(request, linkOf(context));
  }
}
