import type { ChatMessage, ModelCallMeta, ToolCall, ToolSpec } from '@stagecraft/contracts';

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

export interface ModelResponse {
  content: string;
  toolCalls: ToolCall[];
  usage?: TokenUsage;
  latencyMs: number;
  finishReason: string | null;
  /** The model that answered, as the endpoint reports it (a router may pick a more specific one). */
  model: string;
}

export interface CompleteOptions {
  /** Called with each piece of streamed text, in order. */
  onDelta?: (text: string) => void;
  signal?: AbortSignal;
}

/** The one way Stagecraft talks to a model; failures are StagecraftErrors (UNAVAILABLE, TIMEOUT, INTERNAL). */
export interface ModelGateway {
  readonly model: string;
  complete(meta: ModelCallMeta, messages: ChatMessage[], tools: ToolSpec[], options?: CompleteOptions): Promise<ModelResponse>;
}
