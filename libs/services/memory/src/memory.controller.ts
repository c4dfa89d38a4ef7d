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
import { Handles, SHELL_CONFIG } from '@stagecraft/service-shell';
import type { ShellPorts } from '@stagecraft/service-shell';
import type { MemoryBook } from './memory-book';
import { scopeOfProject } from './project-scope';
import { MEMORY_BOOK } from './tokens';

const linkOf = (context: RequestContext) => ({ correlationId: context.correlationId, causationId: context.causationId });

/**
 * The `memory-<scope>` streams: retain and reflect append to them; recall reads the `memory-memories`
 * view. Each request names its project, whose scope is derived here, within the deployment's roots.
 */
@Controller()
export class MemoryController {
  constructor(
    @Inject(MEMORY_BOOK) private readonly book: MemoryBook,
    @Inject(SHELL_CONFIG) private readonly shell: Pick<ShellPorts, 'projectRoots'>,
  ) {}

  @Handles('memory.retain')
  async retain(@Payload() { projectRoot, ...request }: MemoryRetainRequest, @Ctx() context: RequestContext): Promise<MemoryRetainReply> {
    return this.book.retain({ ...request, scope: scopeOfProject(projectRoot, this.shell.projectRoots) }, linkOf(context));
  }

  @Handles('memory.recall')
  async recall(@Payload() { projectRoot, ...request }: MemoryRecallRequest): Promise<MemoryRecallReply> {
    return this.book.recall({ ...request, scope: scopeOfProject(projectRoot, this.shell.projectRoots) });
  }

  /** Links (and merges) the memories bearing on the query, as `MemoryLinked` / `MemoryRetracted` events, and lists them. */
  @Handles('memory.reflect')
  async reflect(@Payload() { projectRoot, ...request }: MemoryReflectRequest, @Ctx() context: RequestContext): Promise<MemoryReflectReply> {
    return this.book.reflect({ ...request, scope: scopeOfProject(projectRoot, this.shell.projectRoots) }, linkOf(context));
  }
}
