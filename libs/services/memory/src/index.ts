import { Module } from '@nestjs/common';
import { ServiceDefinition } from '@stagecraft/service-shell';
import { MemoryController } from './memory.controller';

@Module({ controllers: [MemoryController] })
export class MemoryModule {}

export const memoryService: ServiceDefinition = { name: 'memory', module: MemoryModule, usesStore: true };
