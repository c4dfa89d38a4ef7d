import 'reflect-metadata';
import { serviceMain } from '@stagecraft/service-shell';
import { promptAssemblyService } from '@stagecraft/prompt-assembly-service';

serviceMain('prompt-assembly', () => promptAssemblyService, process.env);
