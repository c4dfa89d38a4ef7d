import 'reflect-metadata';
import { hostname } from 'node:os';
import { serviceMain } from '@stagecraft/service-shell';
import { toolExecutionOptionsFromEnv, toolExecutionServiceWith } from '@stagecraft/tool-execution-service';

// The process is this file's business: its environment, identity, signals and exit reach the service as
// hooks. A bad sandbox setting names its variable; the stack would only bury it.
serviceMain('tool-execution', () => toolExecutionServiceWith(toolExecutionOptionsFromEnv(process.env)), {
  env: process.env,
  instance: { hostname: hostname(), pid: process.pid, crash: () => process.kill(process.pid, 'SIGKILL') },
  exit: (code) => process.exit(code),
  onStopSignal: (stop) => {
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  },
  onUnhandledRejection: (handle) => process.on('unhandledRejection', handle),
  writeError: (line) => process.stderr.write(line),
});
