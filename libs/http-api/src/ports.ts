import type { ChatMessage, PriceTable } from '@stagecraft/contracts';
import type { EventReader } from '@stagecraft/event-store';
import type { Requester } from '@stagecraft/messaging';

/** What the API reads and asks: the log, the system's subjects (as every client), and the deployment's settings. */
export interface ApiPorts {
  log: EventReader;
  requester: Requester;
  /** The messages each model request of a run sent, rebuilt from the stored prompt bodies (the conversation service's reader). */
  restoreRequests(log: EventReader, runId: string): Promise<{ requestId: string; messages: ChatMessage[] }[]>;
  prices: PriceTable;
}
