import 'reflect-metadata';
import { runServiceProcess } from '@stagecraft/service-shell';
import { promptAssemblyService } from '@stagecraft/prompt-assembly-service';

void runServiceProcess(promptAssemblyService, process.env).catch((error: Error) => {
  process.stderr.write(`prompt-assembly: ${error.stack ?? error.message}\n`);
  process.exit(1);
});
