import 'reflect-metadata';
import { runServiceProcess } from '@stagecraft/service-shell';
import { policyService } from '@stagecraft/policy-service';

void runServiceProcess(policyService, process.env).catch((error: Error) => {
  process.stderr.write(`policy: ${error.stack ?? error.message}\n`);
  process.exit(1);
});
