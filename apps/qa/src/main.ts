import 'reflect-metadata';
import { runServiceProcess } from '@stagecraft/service-shell';
import { qaService } from '@stagecraft/qa-service';

void runServiceProcess(qaService).catch((error: Error) => {
  process.stderr.write(`qa: ${error.stack ?? error.message}\n`);
  process.exit(1);
});
