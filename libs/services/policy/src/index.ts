import { Module } from '@nestjs/common';
import { ServiceDefinition } from '@stagecraft/service-shell';
import { PolicyController } from './policy.controller';

@Module({ controllers: [PolicyController] })
export class PolicyModule {}

export const policyService: ServiceDefinition = { name: 'policy', module: PolicyModule, usesStore: false };
