import { EventData, EventType } from '@stagecraft/contracts';

/** An event the run decided on, before the driver gives it an id, metadata and a place in the log. */
export type PendingEvent = { [T in EventType]: { type: T; data: EventData<T> } }[EventType];

export const pending = <T extends EventType>(type: T, data: EventData<T>) => ({ type, data }) as PendingEvent;
