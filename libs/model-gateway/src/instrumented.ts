import { recordModelCall, secondsSince, withSpan } from '@stagecraft/telemetry';
import type { ModelGateway } from './gateway';

/**
 * The same gateway, each call a span (`model call`: model, stage, tokens in and out, outcome) and a
 * measurement (`stagecraft_model_call_duration_seconds`, `stagecraft_model_tokens_total`).
 */
export function instrumentedGateway(gateway: ModelGateway): ModelGateway {
  return {
    get model() {
      return gateway.model;
    },
    complete(meta, messages, tools, options) {
      const started = performance.now();
      const stage = meta.stage;
      const attributes = { 'gen_ai.request.model': gateway.model, 'stagecraft.stage': stage, 'stagecraft.run_id': meta.runId };
      return withSpan('model call', attributes, async (span) => {
        try {
          const response = await gateway.complete(meta, messages, tools, options);
          const tokensIn = response.usage?.promptTokens;
          const tokensOut = response.usage?.completionTokens;
          span.setAttributes({
            'gen_ai.response.model': response.model,
            'gen_ai.usage.input_tokens': tokensIn ?? 0,
            'gen_ai.usage.output_tokens': tokensOut ?? 0,
            'stagecraft.outcome': 'ok',
          });
          recordModelCall({ model: gateway.model, stage, outcome: 'ok', seconds: secondsSince(started), tokensIn, tokensOut });
          return response;
        } catch (error) {
          const code = (error as { code?: unknown }).code;
          const outcome = typeof code === 'string' ? code : 'INTERNAL';
          span.setAttribute('stagecraft.outcome', outcome);
          recordModelCall({ model: gateway.model, stage, outcome, seconds: secondsSince(started) });
          throw error;
        }
      });
    },
  };
}
