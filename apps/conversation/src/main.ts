import 'reflect-metadata';
import { serviceMain } from '@stagecraft/service-shell';
import { conversationService } from '@stagecraft/conversation-service';

serviceMain('conversation', () => conversationService, process.env);
