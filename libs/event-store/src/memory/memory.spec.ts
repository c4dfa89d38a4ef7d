import { describeEventStoreContract } from '../contract/event-store.contract';
import { createMemoryEventStore } from './memory-event-store';

describeEventStoreContract('memory', () => createMemoryEventStore());
