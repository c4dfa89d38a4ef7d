import type { QaReviewReply, QaReviewRequest } from '@stagecraft/contracts';
import type { RequestContext } from '@stagecraft/messaging';
import { ReviewPorts, reviewAnswer } from './review-answer';

/** `qa.review`: an advisory report on a run's answer; it never changes the answer and never fails the run. */
export const review = (request: QaReviewRequest, ports: ReviewPorts, context: RequestContext): Promise<QaReviewReply> =>
  reviewAnswer(ports, request, context);
