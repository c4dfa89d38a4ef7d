import { Module } from '@nestjs/common';
import { ServiceDefinition } from '@stagecraft/service-shell';

@Module({})
export class PromptAssemblyModule {}

export const promptAssemblyService: ServiceDefinition = { name: 'prompt-assembly', module: PromptAssemblyModule, usesStore: false };
