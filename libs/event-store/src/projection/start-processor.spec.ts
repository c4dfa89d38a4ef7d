import { createMemoryEventStore } from '../memory/memory-event-store';
import { describeProcessorRunner } from './start-processor.testing';

describeProcessorRunner('memory', createMemoryEventStore);
