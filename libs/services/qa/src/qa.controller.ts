import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import type { QaReviewReply, QaReviewRequest } from '@stagecraft/contracts';
import { cachedRequests } from '@stagecraft/messaging';
import type { RequestContext, Requester } from '@stagecraft/messaging';
import type { ModelGateway } from '@stagecraft/model-gateway';
import { Handles, LOGGER, NEW_ID, REQUESTER } from '@stagecraft/service-shell';
import type { NewId } from '@stagecraft/service-shell';
import type { Logger } from 'pino';
import { ReviewPorts, reviewAnswer } from './review-answer';
import { MODEL_GATEWAY } from './tokens';

@Controller()
export class QaController {
  private readonly ports: ReviewPorts;

  constructor(
    @Inject(REQUESTER) requester: Requester,
    @Inject(MODEL_GATEWAY) gateway: ModelGateway,
    @Inject(NEW_ID) newId: NewId,
    @Inject(LOGGER) logger: Logger,
  ) {
    // The qa_review policy depends only on the request's switches: asked once per minute, not per review.
    this.ports = { requester: cachedRequests(requester, 'policy.decide', { shareReplies: true }), gateway, newId, logger };
  }

  @Handles('qa.review')
  review(@Payload() request: QaReviewRequest, @Ctx() context: RequestContext): Promise<QaReviewReply> {
    return reviewAnswer(this.ports, request, context);
  }
}
