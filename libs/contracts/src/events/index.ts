import { z } from 'zod';
import { EventMetadata } from '../metadata';
import { conversationEventSchemas } from './conversation';
import { EventUnion } from './family';
import { memoryEventSchemas } from './memory';
import { promptEventSchemas } from './prompt';
import { runEventSchemas } from './run';
import { toolCallEventSchemas } from './toolcall';
import { indexEventSchemas } from './index-events';
import { workflowEventSchemas } from './workflow';

export { Usage } from '../qa';
export { ToolCall } from './shared';
export { eventFamily, type EventFamily, type EventSchemas, type EventUnion, type FamilyEvent } from './family';
export { runEventSchemas, runEvents, type RunEvent, type RunEventType } from './run';
export { toolCallEventSchemas, toolCallEvents, type ToolCallEvent } from './toolcall';
export { conversationEventSchemas, conversationEvents, type ConversationEvent } from './conversation';
export { memoryEventSchemas, memoryEvents, type MemoryEvent } from './memory';
export { promptEventSchemas, promptEvents, type PromptEvent } from './prompt';
export { workflowEventSchemas, workflowEvents, type WorkflowEvent } from './workflow';
export {
  indexEventSchemas,
  indexEvents,
  type IndexEvent,
  IndexLanguage,
  SymbolKind,
  IndexedSymbol,
  EntryPointKind,
  EntryPoint,
  IndexedFile,
} from './index-events';
export { MessageHashEntry, compactMessageHashes, expandMessageHashes } from './message-hashes';

/** Event data schemas, one per event type, of every stream family. */
export const eventDataSchemas = {
  ...runEventSchemas,
  ...conversationEventSchemas,
  ...memoryEventSchemas,
  ...toolCallEventSchemas,
  ...promptEventSchemas,
  ...indexEventSchemas,
  ...workflowEventSchemas,
};

export type EventType = keyof typeof eventDataSchemas;
export const EVENT_TYPES = Object.keys(eventDataSchemas) as EventType[];
export type EventData<T extends EventType> = z.infer<(typeof eventDataSchemas)[T]>;

function envelope<T extends EventType>(type: T) {
  return z.object({ type: z.literal(type), data: eventDataSchemas[type], metadata: EventMetadata });
}

const envelopes = EVENT_TYPES.map((type) => envelope(type));
/** Every domain event: `{ type, data, metadata }`, discriminated by `type`. */
export const StagecraftEvent = z.discriminatedUnion('type', envelopes as unknown as [ReturnType<typeof envelope<EventType>>]);
export type StagecraftEvent = EventUnion<typeof eventDataSchemas>;

export type EventOf<T extends EventType> = Extract<StagecraftEvent, { type: T }>;

/** Parses an event of a known type; throws a ZodError naming the bad fields. */
export function parseEvent(value: unknown): StagecraftEvent {
  return StagecraftEvent.parse(value) as StagecraftEvent;
}

export const streams = {
  run: (runId: string) => `run-${runId}`,
  conversation: (conversationId: string) => `conversation-${conversationId}`,
  toolCall: (callId: string) => `toolcall-${callId}`,
  memory: (scope: string) => `memory-${scope}`,
  /** One prompt body, under its sha256 (docs/decisions/0018). */
  promptBody: (hash: string) => `promptbody-${hash}`,
  /** The codebase index of one project root, under a digest of the root's real path (docs/decisions/0022). */
  index: (project: string) => `index-${project}`,
  /** A multi-agent workflow (docs/decisions/0023). */
  workflow: (workflowId: string) => `workflow-${workflowId}`,
} as const;

/** The run a `run-<runId>` stream is of: what its events' metadata no longer repeats (docs/decisions/0018). */
export const runOfStream = (streamId: string): string | undefined =>
  streamId.startsWith(streams.run('')) ? streamId.slice(streams.run('').length) : undefined;
