import 'reflect-metadata';
import { runServiceProcess } from '@stagecraft/service-shell';
import { qaServiceFromEnv } from '@stagecraft/qa-service';

const fail = (error: Error) => {
  process.stderr.write(`qa: ${error.stack ?? error.message}\n`);
  process.exit(1);
};

try {
  void runServiceProcess(qaServiceFromEnv(process.env), process.env).catch(fail);
} catch (error) {
  // A bad model setting names its variable; the stack would only bury it.
  process.stderr.write(`qa: ${(error as Error).message}\n`);
  process.exit(1);
}
