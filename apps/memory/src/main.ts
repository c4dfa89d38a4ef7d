import 'reflect-metadata';
import { processHooks, serviceMain } from '@stagecraft/service-shell';
import { memoryService } from '@stagecraft/memory-service';

// The process is this file's business: its environment, identity, signals and exit reach the service as hooks.
serviceMain('memory', () => memoryService, processHooks(process));
