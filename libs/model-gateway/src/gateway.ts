import type { ChatMessage, ModelCallMeta, Stage, ToolCall, ToolSpec } from '@stagecraft/contracts';
import type { StructuredOutcome, StructuredOutput } from './structured-output';

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** Of `promptTokens`, those the provider served from its prompt cache; absent when it did not say. */
  cachedPromptTokens?: number;
}

export interface ModelResponse {
  content: string;
  toolCalls: ToolCall[];
  usage?: TokenUsage;
  latencyMs: number;
  finishReason: string | null;
  /** The model that answered, as the endpoint reports it (a router may pick a more specific one). */
  model: string;
  /**
   * The model this call asked for (the stage's own, or the default). Carried on the response so that
   * it reaches the caller through any gateway that wraps another.
   */
  askedModel?: string;
  /** Only for a call that asked for `structuredOutput`: whether the reply was asked to match its schema (see StructuredOutcome). */
  structured?: StructuredOutcome;
}

export interface CompleteOptions {
  /** Called with each piece of streamed text, in order. */
  onDelta?: (text: string) => void;
  signal?: AbortSignal;
  /** `none`: the tools are offered (so the request's prefix stays the run's) but the model is asked to call none. */
  toolChoice?: 'none';
  /**
   * Ask for a reply matching this schema (`response_format: json_schema`, strict) where the endpoint
   * supports it. Where it refuses, the same request is sent once without it; the response says which.
   */
  structuredOutput?: StructuredOutput;
}

/** The one way Stagecraft talks to a model; failures are StagecraftErrors (UNAVAILABLE, TIMEOUT, CONFIGURATION, INTERNAL). */
export interface ModelGateway {
  /** The default model: what a stage without its own asks. */
  readonly model: string;
  /**
   * The model `complete` asks for a call of this stage (`STAGECRAFT_MODEL_<STAGE>`, else `model`).
   * Absent: every stage asks `model`. A gateway that wraps another passes it on.
   */
  modelFor?(stage: Stage): string;
  complete(meta: ModelCallMeta, messages: ChatMessage[], tools: ToolSpec[], options?: CompleteOptions): Promise<ModelResponse>;
}

/** The model a gateway asks for a call of this stage: what a request's record names. */
export const stageModelOf = (gateway: Pick<ModelGateway, 'model' | 'modelFor'>, stage: Stage): string =>
  gateway.modelFor?.(stage) ?? gateway.model;
