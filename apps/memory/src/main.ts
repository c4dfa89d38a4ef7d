import 'reflect-metadata';
import { runServiceProcess } from '@stagecraft/service-shell';
import { memoryService } from '@stagecraft/memory-service';

void runServiceProcess(memoryService, process.env).catch((error: Error) => {
  process.stderr.write(`memory: ${error.stack ?? error.message}\n`);
  process.exit(1);
});
