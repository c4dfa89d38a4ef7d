import { Controller, Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  HistoryGetReply,
  HistoryGetRequest,
  ReasoningOutcomeGetReply,
  ReasoningOutcomeGetRequest,
  conversationEvents,
  runEvents,
  streams,
} from '@stagecraft/contracts';
import { readEvents } from '@stagecraft/event-store';
import type { EventReader } from '@stagecraft/event-store';
import { EVENT_READER, Handles } from '@stagecraft/service-shell';

/** What runs and conversations left behind, read from their streams; this controller never writes. */
@Controller()
export class HistoryController {
  constructor(@Inject(EVENT_READER) private readonly reader: EventReader) {}

  @Handles('memory.reasoning-outcome.get')
  async reasoningOutcome(@Payload() { runId }: ReasoningOutcomeGetRequest): Promise<ReasoningOutcomeGetReply> {
    const events = await readEvents(this.reader, streams.run(runId), runEvents, { direction: 'backwards' });
    const latest = events.find((e) => e.type === 'ReasoningRecorded');
    return { outcome: latest?.data.outcome ?? null };
  }

  @Handles('memory.history.get')
  async history(@Payload() { conversationId }: HistoryGetRequest): Promise<HistoryGetReply> {
    const events = await readEvents(this.reader, streams.conversation(conversationId), conversationEvents);
    return { conversationId, summary: null, messages: events.flatMap((e) => (e.type === 'MessageAppended' ? [{ role: e.data.role, content: e.data.content }] : [])) };
  }
}
