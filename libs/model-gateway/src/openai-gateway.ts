import { performance } from 'node:perf_hooks';
import OpenAI from 'openai';
import type { Logger } from 'pino';
import { StagecraftError } from '@stagecraft/contracts';
import type { ChatMessage, ModelCallMeta, Stage, ToolSpec } from '@stagecraft/contracts';
import { Completion, completionOf, createStreamAccumulator } from './accumulate';
import { DEFAULT_BASE_URL, GatewayConfig, modelForStage } from './config';
import { modelError } from './errors';
import type { CompleteOptions, ModelGateway, ModelResponse } from './gateway';
import { toOpenAiMessage, toOpenAiTool } from './openai-params';
import { StructuredOutcome, StructuredOutput, refusesStructuredOutput, responseFormatOf } from './structured-output';

export interface OpenAiGatewayOptions {
  baseURL: string;
  /** Null: fine for a local endpoint; against the default endpoint every call fails with UNAVAILABLE. */
  apiKey: string | null;
  model: string;
  stageModels?: GatewayConfig['stageModels'];
  timeoutMs?: number;
  maxRetries?: number;
  logger: Logger;
  /** Defaults to true. */
  stream?: boolean;
}

export const STAGECRAFT_HEADERS = {
  runId: 'x-stagecraft-run-id',
  conversationId: 'x-stagecraft-conversation-id',
  stage: 'x-stagecraft-stage',
} as const;

export const modelHeaders = (meta: ModelCallMeta): Record<string, string> => ({
  [STAGECRAFT_HEADERS.runId]: meta.runId,
  [STAGECRAFT_HEADERS.conversationId]: meta.conversationId,
  [STAGECRAFT_HEADERS.stage]: meta.stage,
});

/** Any OpenAI-compatible endpoint (OpenAI, OpenRouter, vLLM, Ollama) through the official client and its retries. */
export function createOpenAiGateway(options: OpenAiGatewayOptions): ModelGateway {
  const { logger } = options;
  const modelFor = (stage: Stage) => modelForStage(options, stage);
  const stream = options.stream ?? true;
  const missingKey = options.apiKey === null && options.baseURL === DEFAULT_BASE_URL;
  // Local endpoints ignore the key, but the client insists on one.
  const client = new OpenAI({
    baseURL: options.baseURL,
    apiKey: options.apiKey ?? 'unused',
    timeout: options.timeoutMs,
    maxRetries: options.maxRetries,
  });

  async function request(
    meta: ModelCallMeta,
    messages: ChatMessage[],
    tools: ToolSpec[],
    { onDelta, signal, toolChoice }: CompleteOptions,
    structuredOutput: StructuredOutput | undefined,
  ): Promise<Completion> {
    const body = {
      model: modelFor(meta.stage),
      messages: messages.map(toOpenAiMessage),
      ...(tools.length > 0 ? { tools: tools.map(toOpenAiTool), ...(toolChoice ? { tool_choice: toolChoice } : {}) } : {}),
      ...(structuredOutput ? { response_format: responseFormatOf(structuredOutput) } : {}),
    };
    const requestOptions = { headers: modelHeaders(meta), signal };
    if (!stream) {
      const completion = completionOf(await client.chat.completions.create({ ...body, stream: false }, requestOptions), meta.requestId);
      if (completion.content) onDelta?.(completion.content);
      return completion;
    }
    const chunks = await client.chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } }, requestOptions);
    const accumulator = createStreamAccumulator(meta.requestId);
    for await (const chunk of chunks) {
      const text = accumulator.add(chunk);
      if (text) onDelta?.(text);
    }
    return accumulator.result();
  }

  // Endpoint, model and schema that were refused structured output: not asked again in this process.
  const refusedStructured = new Set<string>();

  /** The call, with structured output where asked and not known to be refused; refused, once more without it. */
  async function requestStructured(
    meta: ModelCallMeta,
    messages: ChatMessage[],
    tools: ToolSpec[],
    callOptions: CompleteOptions,
    fields: Record<string, unknown>,
  ): Promise<{ completion: Completion; structured?: StructuredOutcome }> {
    const asked = callOptions.structuredOutput;
    if (asked === undefined) return { completion: await request(meta, messages, tools, callOptions, undefined) };
    // Per schema too: a 400 for one schema strict mode cannot take must not turn the format off for the others.
    const memo = `${options.baseURL} ${modelFor(meta.stage)} ${asked.name}`;
    if (refusedStructured.has(memo)) return { completion: await request(meta, messages, tools, callOptions, undefined), structured: 'off' };
    try {
      return { completion: await request(meta, messages, tools, callOptions, asked), structured: 'json_schema' };
    } catch (error) {
      if (!refusesStructuredOutput(error)) throw error;
      refusedStructured.add(memo);
      logger.warn(
        { ...fields, schema: asked.name, err: (error as Error).message },
        'model endpoint refused structured output; asking again without it',
      );
      return { completion: await request(meta, messages, tools, callOptions, undefined), structured: 'refused' };
    }
  }

  return {
    model: options.model,
    modelFor,
    async complete(meta, messages, tools, callOptions = {}): Promise<ModelResponse> {
      const model = modelFor(meta.stage);
      const fields = {
        requestId: meta.requestId,
        conversationId: meta.conversationId,
        runId: meta.runId,
        userMode: meta.userMode,
        stage: meta.stage,
        toolCount: tools.length,
        reasoningEnabled: meta.reasoningEnabled,
        model,
      };
      logger.info({ ...fields, messageCount: messages.length }, 'model request');
      const started = performance.now();
      try {
        if (missingKey) throw new StagecraftError('UNAVAILABLE', `no OPENAI_API_KEY is set for ${options.baseURL}`);
        const { completion, structured } = await requestStructured(meta, messages, tools, callOptions, fields);
        const latencyMs = performance.now() - started;
        const response: ModelResponse = { ...completion, model: completion.model ?? model, askedModel: model, latencyMs };
        if (response.usage === undefined) delete response.usage;
        if (structured) response.structured = structured;
        logger.info(
          {
            ...fields,
            latencyMs,
            finishReason: response.finishReason,
            usage: response.usage,
            toolCalls: response.toolCalls.length,
            ...(structured && { structured }),
          },
          'model response',
        );
        return response;
      } catch (error) {
        const elapsedMs = performance.now() - started;
        const failure = modelError(error, model, options.baseURL, { elapsedMs, timeoutMs: client.timeout });
        logger.warn({ ...fields, latencyMs: elapsedMs, code: failure.code, err: failure.message }, 'model request failed');
        throw failure;
      }
    },
  };
}
