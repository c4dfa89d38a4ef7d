import 'reflect-metadata';
import { processHooks, serviceMain } from '@stagecraft/service-shell';
import { toolExecutionOptionsFromEnv, toolExecutionServiceWith } from '@stagecraft/tool-execution-service';

// The process is this file's business: its environment, identity, signals and exit reach the service as
// hooks. A bad sandbox setting names its variable; the stack would only bury it.
serviceMain('tool-execution', () => toolExecutionServiceWith(toolExecutionOptionsFromEnv(process.env)), processHooks(process));
