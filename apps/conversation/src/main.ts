import 'reflect-metadata';
import { processHooks, serviceMain } from '@stagecraft/service-shell';
import { conversationService } from '@stagecraft/conversation-service';

// The process is this file's business: its environment, identity, signals and exit reach the service as hooks.
serviceMain('conversation', () => conversationService, processHooks(process));
