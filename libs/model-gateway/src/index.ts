/** The model behind one port: an OpenAI-compatible client with streaming, retries, per-stage models, usage and prices. */
export type { CompleteOptions, ModelGateway, ModelResponse, TokenUsage } from './gateway';
export { stageModelOf } from './gateway';
export { strictJsonSchema, refusesStructuredOutput } from './structured-output';
export type { StructuredOutcome, StructuredOutput } from './structured-output';
export { instrumentedGateway } from './instrumented';
export { createOpenAiGateway, modelHeaders, STAGECRAFT_HEADERS } from './openai-gateway';
export type { OpenAiGatewayOptions } from './openai-gateway';
export { gatewayConfigFromEnv, modelForStage, stageModelVariable, DEFAULT_BASE_URL, DEFAULT_MODEL } from './config';
export type { GatewayConfig } from './config';
export {
  hashPrompt,
  messageBody,
  canonicalJson,
  piecesNamedBy,
  piecesOf,
  restoreMessages,
  storedBodiesOf,
  storedHashesOf,
} from './hash-prompt';
export type { PromptHash } from './hash-prompt';
export { modelError } from './errors';
export { embedderFromEnv, type Embedder } from './embedder';
