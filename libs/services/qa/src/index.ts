import { Module } from '@nestjs/common';
import { DEFAULT_BASE_URL, createOpenAiGateway, gatewayConfigFromEnv, instrumentedGateway } from '@stagecraft/model-gateway';
import type { GatewayConfig, ModelGateway } from '@stagecraft/model-gateway';
import { LOGGER, SHELL_CONFIG, ServiceDefinition } from '@stagecraft/service-shell';
import type { ShellPorts } from '@stagecraft/service-shell';
import type { Logger } from 'pino';
import { QaController } from './qa.controller';
import { MODEL_GATEWAY } from './tokens';

export { MODEL_GATEWAY } from './tokens';
export { MAX_MODEL_CALLS, reviewAnswer } from './review-answer';
export type { ReviewPorts } from './review-answer';
export { parseQaReport } from './parse-report';
export { qaCallId } from './review-tool-call';

export interface QaServiceOptions {
  /** The model the reviewer calls. */
  gateway?: ModelGateway;
  /** Without a gateway: the settings to build one from; by default OPENAI_BASE_URL, OPENAI_API_KEY and STAGECRAFT_MODEL. */
  config?: GatewayConfig;
}

function gatewayFrom(config: GatewayConfig | undefined, logger: Logger, env: ShellPorts['env']): ModelGateway {
  const settings = config ?? gatewayConfigFromEnv(env);
  if (settings.apiKey === null && settings.baseURL === DEFAULT_BASE_URL) {
    logger.warn({ service: 'qa' }, 'no OPENAI_API_KEY is set: every review will report the model as unavailable');
  }
  return instrumentedGateway(createOpenAiGateway({ ...settings, logger }));
}

/** A Nest module for the advisory reviewer, with the given model or one built from the settings. */
export function qaModule(options: QaServiceOptions = {}): new () => unknown {
  const gateway = options.gateway
    ? { provide: MODEL_GATEWAY, useValue: instrumentedGateway(options.gateway) }
    : {
        provide: MODEL_GATEWAY,
        useFactory: (logger: Logger, shell: ShellPorts) => gatewayFrom(options.config, logger, shell.env),
        inject: [LOGGER, SHELL_CONFIG],
      };
  @Module({ controllers: [QaController], providers: [gateway] })
  class QaModule {}
  return QaModule;
}

export function qaServiceWith(options: QaServiceOptions): ServiceDefinition {
  return { name: 'qa', module: qaModule(options), usesStore: false };
}

/** Reads the model settings now, so a bad variable stops the process before it serves anything. */
export function qaServiceFromEnv(env: Record<string, string | undefined>): ServiceDefinition {
  return qaServiceWith({ config: gatewayConfigFromEnv(env) });
}

export const QaModule = qaModule();
export const qaService: ServiceDefinition = { name: 'qa', module: QaModule, usesStore: false };
