/** The qa service: an advisory reviewer of a run's answer, as a handler table. */
import { gatewayConfigFromEnv } from '@stagecraft/model-gateway';
import { ServiceDefinition, defineService } from '@stagecraft/service-shell';
import { QaServiceOptions, reviewPorts } from './dependencies';
import { review } from './review/review.handler';
import type { ReviewPorts } from './review/review-answer';

export type { QaServiceOptions } from './dependencies';
export { MAX_MODEL_CALLS, reviewAnswer } from './review/review-answer';
export type { ReviewPorts } from './review/review-answer';
export { parseQaReport } from './review/parse-report';
export { qaCallId } from './review/review-tool-call';

export function qaServiceWith(options: QaServiceOptions): ServiceDefinition {
  return defineService<ReviewPorts>({
    name: 'qa',
    usesStore: false,
    start: (ports) => reviewPorts(ports, options),
    handlers: { 'qa.review': review },
  });
}

/** Reads the model settings now, so a bad variable stops the process before it serves anything. */
export function qaServiceFromEnv(env: Record<string, string | undefined>): ServiceDefinition {
  return qaServiceWith({ config: gatewayConfigFromEnv(env) });
}

export const qaService: ServiceDefinition = qaServiceWith({});
