import 'reflect-metadata';
import { serviceMain } from '@stagecraft/service-shell';
import { qaServiceFromEnv } from '@stagecraft/qa-service';

// A bad model setting names its variable; the stack would only bury it.
serviceMain('qa', () => qaServiceFromEnv(process.env), process.env);
