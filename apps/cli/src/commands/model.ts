import { ModelGateway, createOpenAiGateway, gatewayConfigFromEnv } from '@stagecraft/model-gateway';
import { ScriptedModelServer, demoScript, startScriptedModelServer } from '@stagecraft/scripted-model';
import type { Logger } from 'pino';

export interface ModelChoice {
  gateway: ModelGateway;
  scripted: ScriptedModelServer | null;
  describe: string;
}

/**
 * A real endpoint when OPENAI_API_KEY or OPENAI_BASE_URL is set; otherwise the built-in scripted
 * model server, so the command still runs a whole conversation, and says so.
 */
export async function chooseModel(env: Record<string, string | undefined>, logger: Logger): Promise<ModelChoice> {
  const config = gatewayConfigFromEnv(env);
  if (config.apiKey || env['OPENAI_BASE_URL']) {
    return { gateway: createOpenAiGateway({ ...config, logger }), scripted: null, describe: `${config.model} at ${config.baseURL}` };
  }
  const scripted = await startScriptedModelServer({ script: demoScript() });
  const gateway = createOpenAiGateway({
    baseURL: scripted.url,
    apiKey: 'scripted',
    model: 'stagecraft-scripted-demo',
    logger,
    maxRetries: 0,
  });
  return {
    gateway,
    scripted,
    describe: `the built-in scripted model at ${scripted.url} (no OPENAI_API_KEY set: answers are scripted, not generated)`,
  };
}
