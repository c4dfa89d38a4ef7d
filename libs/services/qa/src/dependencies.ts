import { DEFAULT_BASE_URL, createOpenAiGateway, gatewayConfigFromEnv, instrumentedGateway } from '@stagecraft/model-gateway';
import type { GatewayConfig, ModelGateway } from '@stagecraft/model-gateway';
import { cachedRequests } from '@stagecraft/messaging';
import type { ShellPorts } from '@stagecraft/service-shell';
import type { ReviewPorts } from './review/review-answer';

export interface QaServiceOptions {
  /** The model the reviewer calls. */
  gateway?: ModelGateway;
  /** Without a gateway: the settings to build one from; by default OPENAI_BASE_URL, OPENAI_API_KEY and STAGECRAFT_MODEL. */
  config?: GatewayConfig;
}

function gatewayFrom(config: GatewayConfig | undefined, shell: ShellPorts): ModelGateway {
  const settings = config ?? gatewayConfigFromEnv(shell.env);
  if (settings.apiKey === null && settings.baseURL === DEFAULT_BASE_URL) {
    shell.logger.warn({ service: 'qa' }, 'no OPENAI_API_KEY is set: every review will report the model as unavailable');
  }
  return createOpenAiGateway({ ...settings, logger: shell.logger });
}

/** What the reviewer works with: the given model, or one built from the settings. */
export function reviewPorts(shell: ShellPorts, options: QaServiceOptions): ReviewPorts {
  return {
    // The qa_review policy depends only on the request's switches: asked once per minute, not per review.
    requester: cachedRequests(shell.requester, 'policy.decide', { shareReplies: true }),
    gateway: instrumentedGateway(options.gateway ?? gatewayFrom(options.config, shell)),
    newId: shell.newId,
    logger: shell.logger,
  };
}
