import 'reflect-metadata';
import { serviceMain } from '@stagecraft/service-shell';
import { memoryService } from '@stagecraft/memory-service';

serviceMain('memory', () => memoryService, process.env);
