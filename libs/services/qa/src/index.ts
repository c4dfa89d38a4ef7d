import { Module } from '@nestjs/common';
import { ServiceDefinition } from '@stagecraft/service-shell';

@Module({})
export class QaModule {}

export const qaService: ServiceDefinition = { name: 'qa', module: QaModule, usesStore: false };
