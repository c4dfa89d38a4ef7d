import 'reflect-metadata';
import { runServiceProcess } from '@stagecraft/service-shell';
import { conversationService } from '@stagecraft/conversation-service';

void runServiceProcess(conversationService, process.env).catch((error: Error) => {
  process.stderr.write(`conversation: ${error.stack ?? error.message}\n`);
  process.exit(1);
});
