import 'reflect-metadata';
import { processHooks, serviceMain } from '@stagecraft/service-shell';
import { qaServiceFromEnv } from '@stagecraft/qa-service';

// The process is this file's business: its environment, identity, signals and exit reach the service as
// hooks. A bad model setting names its variable; the stack would only bury it.
serviceMain('qa', () => qaServiceFromEnv(process.env), processHooks(process));
