import { Module } from '@nestjs/common';
import { ServiceDefinition } from '@stagecraft/service-shell';

@Module({})
export class ToolExecutionModule {}

export const toolExecutionService: ServiceDefinition = { name: 'tool-execution', module: ToolExecutionModule, usesStore: true };
