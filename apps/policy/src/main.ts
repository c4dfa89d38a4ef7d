import 'reflect-metadata';
import { processHooks, serviceMain } from '@stagecraft/service-shell';
import { policyService } from '@stagecraft/policy-service';

// The process is this file's business: its environment, identity, signals and exit reach the service as hooks.
serviceMain('policy', () => policyService, processHooks(process));
