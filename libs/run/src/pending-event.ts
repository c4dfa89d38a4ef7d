import { EventData, RunEventType } from '@stagecraft/contracts';

/** A run event the decider chose, before the shell gives it an id, metadata and a place in the log. */
export type PendingEvent = { [T in RunEventType]: { type: T; data: EventData<T> } }[RunEventType];

export const pending = <T extends RunEventType>(type: T, data: EventData<T>) => ({ type, data }) as PendingEvent;
