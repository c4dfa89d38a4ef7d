import { Module } from '@nestjs/common';
import { ServiceDefinition } from '@stagecraft/service-shell';
import { RunController } from './run.controller';

@Module({ controllers: [RunController] })
export class ConversationModule {}

export const conversationService: ServiceDefinition = { name: 'conversation', module: ConversationModule, usesStore: true };
