import 'reflect-metadata';
import { processHooks, serviceMain } from '@stagecraft/service-shell';
import { promptAssemblyService } from '@stagecraft/prompt-assembly-service';

// The process is this file's business: its environment, identity, signals and exit reach the service as hooks.
serviceMain('prompt-assembly', () => promptAssemblyService, processHooks(process));
