import { EventOf, StagecraftEvent, runOfStream, streams } from '@stagecraft/contracts';
import type { EventStore, Processor, RecordedEvent } from '@stagecraft/event-store';
import { MessageBus, StoredRunEvent, publishRunEvent } from '@stagecraft/messaging';
import { rememberTurn } from './conversation-turn';

export const RUN_FOLLOW_UP = 'conversation-run-follow-up';
const RUN_STREAM = streams.run('');

export interface RunFollowUpPorts {
  store: EventStore;
  bus: MessageBus;
  prefix: string;
}

/**
 * What follows each commit to a run stream, read from the log, in this order: a completed run's turn
 * is stored in its conversation, then the event goes out on `run.<runId>.events` with its id and
 * position. A client that saw `RunCompleted` therefore finds the turn when it sends its next message;
 * after a restart the feed may repeat events, and clients drop what they saw by id. Failed runs leave
 * no turn.
 */
export function runFollowUp(ports: RunFollowUpPorts): Processor {
  return {
    name: RUN_FOLLOW_UP,
    handles: (event) => event.streamId.startsWith(RUN_STREAM),
    async handle(recorded) {
      const event = recorded as RecordedEvent & StagecraftEvent;
      if (event.type === 'RunCompleted') await rememberTurn(ports.store, event as RecordedEvent & EventOf<'RunCompleted'>);
      const { id, type, data, metadata, position } = event;
      // The feed names the run in each event's metadata, as the stream does in its name (docs/decisions/0018);
      // `publishRunEvent` sends the public event (feed/v1) of it, never the stored one.
      const named = { runId: runOfStream(event.streamId), ...metadata };
      publishRunEvent(ports.bus, ports.prefix, { id, position: position.toString(), type, data, metadata: named } as StoredRunEvent);
    },
  };
}
