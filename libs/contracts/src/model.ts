import { z } from 'zod';
import { ConversationId, Id, RunId, Stage, UserMode } from './common';
import { ToolCall } from './events';

/** One message of a model conversation, as Stagecraft keeps it: provider formats are mapped at the gateway. */
export const ChatMessage = z.object({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.string(),
  /** Assistant messages only: the tool calls the model made. */
  toolCalls: z.array(ToolCall).optional(),
  /** Tool messages only: which call this is the result of. */
  toolCallId: z.string().optional(),
});
export type ChatMessage = z.infer<typeof ChatMessage>;

/** A function the model may call; `parameters` is the JSON Schema of its arguments. */
export const ToolSpec = z.object({
  name: z.string().min(1),
  description: z.string(),
  parameters: z.record(z.string(), z.unknown()),
});
export type ToolSpec = z.infer<typeof ToolSpec>;

/** Who is asking and why: carried as headers and log fields on every model request (seed 002 §9). */
export const ModelCallMeta = z.object({
  requestId: Id,
  runId: RunId,
  conversationId: ConversationId,
  stage: Stage,
  userMode: UserMode,
  reasoningEnabled: z.boolean(),
});
export type ModelCallMeta = z.infer<typeof ModelCallMeta>;

/**
 * A piece of a model's answer as it streams, for a live view (`run.<runId>.stream`). Core NATS only,
 * never stored: a subscriber that misses pieces, or joins late, gets the whole answer from the run's
 * events once the model has answered. `seq` counts the pieces of one request from 0.
 */
export const ModelStreamDelta = z.object({
  runId: RunId,
  requestId: Id,
  stage: Stage,
  seq: z.number().int().min(0),
  text: z.string(),
});
export type ModelStreamDelta = z.infer<typeof ModelStreamDelta>;
