import 'reflect-metadata';
import { runServiceProcess } from '@stagecraft/service-shell';
import { toolExecutionOptionsFromEnv, toolExecutionServiceWith } from '@stagecraft/tool-execution-service';

void runServiceProcess(toolExecutionServiceWith(toolExecutionOptionsFromEnv(process.env)), process.env).catch((error: Error) => {
  process.stderr.write(`tool-execution: ${error.stack ?? error.message}\n`);
  process.exit(1);
});
