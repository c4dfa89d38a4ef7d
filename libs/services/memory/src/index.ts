import { Module } from '@nestjs/common';
import { ServiceDefinition } from '@stagecraft/service-shell';
import { HistoryController } from './history.controller';
import { MemoryController } from './memory.controller';

@Module({ controllers: [MemoryController, HistoryController] })
export class MemoryModule {}

export const memoryService: ServiceDefinition = { name: 'memory', module: MemoryModule, usesStore: true };
