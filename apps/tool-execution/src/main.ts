import 'reflect-metadata';
import { runServiceProcess } from '@stagecraft/service-shell';
import { toolExecutionService } from '@stagecraft/tool-execution-service';

void runServiceProcess(toolExecutionService).catch((error: Error) => {
  process.stderr.write(`tool-execution: ${error.stack ?? error.message}\n`);
  process.exit(1);
});
