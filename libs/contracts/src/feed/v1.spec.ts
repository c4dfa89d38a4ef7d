import { z } from 'zod';
import { FEED_EVENT_TYPES, FeedMetadata, feedV1DataSchemas } from './v1';

/**
 * feed/v1 as it was published: each event's required and optional top-level fields. Version 1 may only
 * grow (a new optional field, a new type); when this fails, the change breaks v1 clients and belongs in
 * v2 (docs/decisions/0046). A new optional field is added to the second list here.
 */
const PUBLISHED_V1: Record<string, [required: string[], optional: string[]]> = {
  RunStarted: [
    ['runId', 'conversationId', 'userMode', 'reasoningEnabled', 'userInput', 'projectRoot'],
    ['historyThrough', 'limits', 'forkedFrom', 'approve', 'agent'],
  ],
  StageEntered: [['stage', 'iteration', 'contextId'], ['policy']],
  ModelRequested: [['requestId', 'stage', 'model', 'toolNames', 'messageCount', 'tokenEstimate'], []],
  ModelResponded: [['requestId', 'content', 'toolCalls', 'latencyMs', 'finishReason'], ['usage']],
  ReasoningRecorded: [['requestId', 'format', 'outcome'], ['text']],
  InstructionIssued: [['instruction', 'accepted'], ['reason']],
  ToolCallRequested: [['callId', 'tool', 'arguments', 'stage'], []],
  ToolCallCompleted: [['callId', 'tool', 'ok', 'output', 'truncated', 'durationMs'], ['interrupted']],
  ToolCallRejected: [['callId', 'tool', 'stage', 'code', 'reason'], []],
  MessageAppended: [
    ['messageId', 'role', 'content', 'instructions', 'intermediate', 'kind'],
    ['stage', 'toolCalls', 'toolCallId'],
  ],
  HistoryCompacted: [['compactionId', 'method', 'trigger', 'replaced', 'summary', 'tokensBefore', 'tokensAfter'], ['modelCall']],
  DeliveryChecked: [['state', 'iteration'], ['reason']],
  QAReportIssued: [['report'], ['modelCalls']],
  ApprovalRequested: [['approvalId', 'kind', 'summary'], ['callId', 'tool', 'arguments']],
  ApprovalGiven: [['approvalId'], ['note']],
  ApprovalDenied: [['approvalId', 'reason'], []],
  LimitReached: [['limit', 'value', 'stage', 'iteration'], []],
  RunCompleted: [['deliveryState', 'answer'], ['limit']],
  RunFailed: [['code', 'reason'], ['stage']],
  RunCancelled: [['by', 'reason'], ['stage']],
  RunContinued: [['by'], []],
  metadata: [
    ['runId', 'occurredAt'],
    ['conversationId', 'correlationId', 'causationId', 'contextId'],
  ],
};

function fieldsOf(schema: z.ZodObject): [required: string[], optional: string[]] {
  const entries = Object.entries(schema.shape as Record<string, z.ZodType>);
  return [entries.filter(([, s]) => !s.safeParse(undefined).success).map(([k]) => k), entries.filter(([, s]) => s.safeParse(undefined).success).map(([k]) => k)];
}

describe('feed/v1 only grows', () => {
  const current: Record<string, z.ZodObject> = { ...feedV1DataSchemas, metadata: FeedMetadata };

  it('keeps every event type it was published with', () => {
    for (const type of Object.keys(PUBLISHED_V1).filter((t) => t !== 'metadata')) expect(FEED_EVENT_TYPES).toContain(type);
  });

  it.each(Object.keys(PUBLISHED_V1).map((type) => [type]))('keeps %s’s fields: the same required ones, every optional one', (type) => {
    const [required, optional] = fieldsOf(current[type]);
    const [wasRequired, wasOptional] = PUBLISHED_V1[type];
    expect({ type, required: [...required].sort() }).toEqual({ type, required: [...wasRequired].sort() });
    for (const field of wasOptional) expect({ type, field, optional: optional.includes(field) }).toEqual({ type, field, optional: true });
  });
});
