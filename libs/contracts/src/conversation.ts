import { z } from 'zod';
import { ConversationId, DeliveryState, NonBlank, RunId, Stage, UserMode } from './common';

export const ConversationSendRequest = z.object({
  conversationId: ConversationId.optional(),
  runId: RunId.optional(),
  message: NonBlank.max(200_000),
  userMode: UserMode,
  reasoningEnabled: z.boolean(),
  projectRoot: NonBlank,
});
export type ConversationSendRequest = z.infer<typeof ConversationSendRequest>;
export const ConversationSendReply = z.object({ runId: RunId, conversationId: ConversationId });
export type ConversationSendReply = z.infer<typeof ConversationSendReply>;

export const RunStatus = z.enum(['running', 'completed', 'failed']);
export const RunView = z.object({
  runId: RunId,
  conversationId: ConversationId,
  userMode: UserMode,
  reasoningEnabled: z.boolean(),
  status: RunStatus,
  stage: Stage.nullable(),
  deliveryState: DeliveryState.nullable(),
  answer: z.string().nullable(),
  eventCount: z.number().int().min(0),
  revision: z.number().int().min(-1),
});
export type RunView = z.infer<typeof RunView>;

export const RunGetRequest = z.object({ runId: RunId });
export type RunGetRequest = z.infer<typeof RunGetRequest>;
export const RunGetReply = z.object({ run: RunView });
export type RunGetReply = z.infer<typeof RunGetReply>;
