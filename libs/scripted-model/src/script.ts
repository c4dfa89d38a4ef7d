/** One scripted answer of the model to one chat completion request. */
export interface ScriptedReply {
  /** Assistant text; may contain `<ide_reasoning>` blocks. */
  content?: string;
  toolCalls?: ScriptedToolCall[];
  /** Defaults to `tool_calls` when there are tool calls, otherwise `stop`. */
  finishReason?: 'stop' | 'tool_calls' | 'length';
  /**
   * The reply as JSON: its text is the content when the request asked for a `response_format` and the
   * server honours it (`structuredOutput: 'honour'`); otherwise `content` is sent, as to any request.
   */
  json?: unknown;
  /** Answer with this HTTP error instead (429 or 5xx exercise the client's retries). */
  status?: number;
  delayMs?: number;
  /** `prompt_tokens_details.cached_tokens`: how many of the prompt tokens to report as served from a cache. */
  usage?: { prompt_tokens: number; completion_tokens: number; prompt_tokens_details?: { cached_tokens: number } };
}

export interface ScriptedToolCall {
  id?: string;
  name: string;
  arguments: Record<string, unknown> | string;
}

export interface RecordedRequest {
  /** Position among every request this server received, from 0. */
  index: number;
  method: string;
  /** Path without the `/v1` prefix, e.g. `/chat/completions`. */
  path: string;
  /** Header names lower-cased; repeated headers joined with `, `. */
  headers: Record<string, string>;
  /** The parsed JSON body (`undefined` for a GET); typed loosely so tests can read it field by field. */
  body: any;
  /** The `x-stagecraft-stage` header, when present. */
  stage?: string;
}

/** Replies consumed in order, one per chat completion request, or a function asked per request. */
export type Script = ScriptedReply[] | ((request: RecordedRequest) => ScriptedReply | Promise<ScriptedReply>);

export interface ScriptedModelServer {
  /** Base URL including `/v1`, ready for `new OpenAI({ baseURL })`. */
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** Replaces the script; an array script starts again from its first reply. */
  setScript(script: Script): void;
  /** What the endpoint does with a `response_format` from now on (see `startScriptedModelServer`); undefined: ignores it. */
  setStructuredOutput(behaviour: 'honour' | 'refuse' | undefined): void;
  close(): Promise<void>;
}
