import 'reflect-metadata';
import { serviceMain } from '@stagecraft/service-shell';
import { toolExecutionOptionsFromEnv, toolExecutionServiceWith } from '@stagecraft/tool-execution-service';

// A bad sandbox setting names its variable; the stack would only bury it.
serviceMain('tool-execution', () => toolExecutionServiceWith(toolExecutionOptionsFromEnv(process.env)), process.env);
