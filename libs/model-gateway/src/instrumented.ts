import { recordModelCall, secondsSince, withSpan } from '@stagecraft/telemetry';
import { ModelGateway, stageModelOf } from './gateway';

/**
 * The same gateway, each call a span (`model call`: model, stage, tokens in and out, outcome) and a
 * measurement (`stagecraft_model_call_duration_seconds`, `stagecraft_model_tokens_total`).
 */
export function instrumentedGateway(gateway: ModelGateway): ModelGateway {
  return {
    get model() {
      return gateway.model;
    },
    ...(gateway.modelFor && { modelFor: (stage) => stageModelOf(gateway, stage) }),
    complete(meta, messages, tools, options) {
      const started = performance.now();
      const stage = meta.stage;
      // Per-stage models: the one this stage asks for is the label (a bounded set: the configured models).
      const model = stageModelOf(gateway, stage);
      const attributes = { 'gen_ai.request.model': model, 'stagecraft.stage': stage, 'stagecraft.run_id': meta.runId };
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
          recordModelCall({ model, stage, outcome: 'ok', seconds: secondsSince(started), tokensIn, tokensOut });
          return response;
        } catch (error) {
          const code = (error as { code?: unknown }).code;
          const outcome = typeof code === 'string' ? code : 'INTERNAL';
          span.setAttribute('stagecraft.outcome', outcome);
          recordModelCall({ model, stage, outcome, seconds: secondsSince(started) });
          throw error;
        }
      });
    },
  };
}
